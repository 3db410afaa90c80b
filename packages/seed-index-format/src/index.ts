// Public API of @context-fold/seed-index-format.
export {};
