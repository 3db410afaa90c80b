// The file Pi loads (package.json `pi.extensions`). It sits in a folder named after the extension so Pi
// lists the package as `context-fold` rather than by a file name; the factory itself is src/extension.ts.
export { default } from "../../src/extension.js";
