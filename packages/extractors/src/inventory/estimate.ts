// The inventory's token estimator: ceil(UTF-8 bytes / 4), the rule summary-formatter's `estimateTokens`
// uses for every budget (extractors sits below it, so the rule is restated here; a test pins them equal).

/** The estimator's name as inventories print it. */
export const INVENTORY_ESTIMATOR = "ceil(utf8 bytes / 4)";

/** Estimated tokens of `text`: ceil(UTF-8 bytes / 4). Never under-counts multi-byte text against chars / 4. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 4);
}
