// Public API of @context-fold/recall-engine.
export {};
