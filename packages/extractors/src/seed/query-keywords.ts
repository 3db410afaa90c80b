// Keywords of the query languages sessions are full of (SQL, Cypher, SPARQL, GraphQL-ish): written in
// capitals they look like error codes (`ENOENT`) to the identifier scanner, but they name nothing, and a
// record's identifier slots are few. The seed index's `identifiers` leaves them out.

const KEYWORDS: ReadonlySet<string> = new Set(
  (
    "SELECT FROM WHERE LIMIT OFFSET ORDER GROUP HAVING INSERT INTO VALUES UPDATE DELETE CREATE ALTER DROP TABLE INDEX VIEW " +
    "JOIN INNER OUTER LEFT RIGHT CROSS UNION EXCEPT INTERSECT DISTINCT BETWEEN EXISTS RETURNING PRIMARY FOREIGN REFERENCES " +
    "DEFAULT UNIQUE CONSTRAINT CASCADE COALESCE COUNT CASE WHEN THEN ELSE NULL TRUE FALSE ASC DESC MATCH MERGE RETURN " +
    "UNWIND OPTIONAL WITH PREFIX FILTER BEGIN COMMIT ROLLBACK TRANSACTION"
  ).split(" "),
);

/** Is text[start, end) a query-language keyword in capitals? (Lower-case words never reach here.) */
export function isQueryKeyword(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length < 3 || length > 11) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 65 || c > 90) return false;
  }
  return KEYWORDS.has(text.slice(start, end));
}
