// Public API of @context-fold/ledger-reader.
export {};
