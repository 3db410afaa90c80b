// Public API of @context-fold/summary-formatter.
export {};
