// Public API of @context-fold/hindsight-local.
export {};
