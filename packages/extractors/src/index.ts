// Public API of @context-fold/extractors.
export {};
