/** The CLI's package.json version, written into the build by tsup.config.ts; undefined when the sources run as they are (tests). */
declare const CONTEXT_FOLD_VERSION: string | undefined;
