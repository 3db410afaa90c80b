// Public API of @context-fold/memory-gardener-client.
export {};
