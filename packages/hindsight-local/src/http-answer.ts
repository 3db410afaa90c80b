// An answer other than 200 that a request earns (bad route, refused body, missing memory): thrown by
// any layer, turned into the status and `{detail}` body at the transport.

export class HttpAnswer extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, detail: unknown) {
    super(typeof detail === "string" ? detail : `HTTP ${status}`);
    this.status = status;
    this.body = { detail };
  }
}
