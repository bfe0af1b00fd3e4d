// memlab_driver for Node: the driver protocol of images/README.md (JSON lines on stdio), so a
// Node driver only maps the ops onto its SUT. Standard library only; the Node twin of the
// Python kit images/driverkit/memlab_driver (same answers, same faults).
//
//   import { serve, BadRequest } from "./driverkit-node/memlab_driver.mjs";
//   serve({ async open(volumes, config) {...}, describe() {...}, async write(context, text, meta) {...},
//           async read(context) {...}, async eraseRecord(context, id) {...} });
//
// Import it before the SUT: it keeps fd 1 for the protocol and sends everything else written to
// stdout (console.log, process.stdout.write) to stderr, the SUT's log. console.warn/console.error
// and process warnings during an op are that op's signals (channel log / warning). A thrown error
// is the SUT refusing (refused: true); BadRequest and Unsupported are driver faults (refused:
// false). stdin closed: exit 0; SIGTERM: exit 143.
import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { format } from "node:util";

export class BadRequest extends Error { constructor(m) { super(m); this.name = "BadRequest"; } }
export class Unsupported extends Error { constructor(m) { super(m); this.name = "Unsupported"; } }

const toStderr = (...args) => { process.stderr.write(format(...args) + "\n"); };
process.stdout.write = (chunk, enc, cb) => process.stderr.write(chunk, enc, cb);
console.log = console.info = console.debug = toStderr;

let signals = [];
const capture = (level, write) => (...args) => {
  const message = format(...args);
  signals.push({ channel: "log", level, logger: "console", message });
  write(message);
};
console.warn = capture("WARNING", toStderr);
console.error = capture("ERROR", toStderr);
process.on("warning", (w) => {
  signals.push({ channel: "warning", level: "WARNING", category: w.name, message: w.message, where: "" });
  toStderr(`${w.name}: ${w.message}`);
});
process.on("SIGTERM", () => process.exit(143));

const send = (answer) => { writeSync(1, JSON.stringify(answer) + "\n"); };
const errorOf = (exc) => ({ type: exc?.name ?? "Error", message: String(exc?.message ?? exc) });

/** A request's field of a JSON type ("string", "object"); a BadRequest when absent or mistyped. */
export function field(req, name, type, fallback) {
  if (!(name in req)) {
    if (fallback !== undefined) return fallback;
    throw new BadRequest(`${req.op}: needs ${name}`);
  }
  const value = req[name];
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  if (kind !== type) throw new BadRequest(`${req.op}: ${name} must be a${type === "object" ? "n" : ""} ${type}`);
  return value;
}

/** Answer every request line with driver's ops until stdin closes. */
export function serve(driver) {
  let opened = false, openError = null;
  const ops = {
    async open(req) {
      if (opened) throw new BadRequest("open was already sent to this process");
      driver.services = field(req, "services", "object", {});
      await driver.open(field(req, "volumes", "object"), field(req, "config", "object", {}));
      opened = true;
      return {};
    },
    async describe() { return { result: { libraries: {}, capabilities: {}, ...(await driver.describe()) } }; },
    async write(req) {
      const rec = await driver.write(field(req, "context", "string"), field(req, "text", "string"),
                                     field(req, "meta", "object", {}));
      return { record: { ...rec, id: String(rec.id) } };
    },
    async read(req) {
      const records = await driver.read(field(req, "context", "string"));
      return { records: records.map((r) => ({ ...r, id: String(r.id), meta: r.meta ?? {} })) };
    },
    async erase(req) {
      const context = field(req, "context", "string");
      if (!("record" in req)) throw new BadRequest("erase needs record (an id, or null for the whole context)");
      if (req.record !== null && typeof req.record !== "string") throw new BadRequest("erase: record must be an id (string) or null");
      const which = req.record === null ? "eraseContext" : "eraseRecord";
      if (!driver[which]) throw new Unsupported(`this driver erases ${req.record === null ? "single records" : "whole contexts"} only`);
      const erased = (await driver[which](context, req.record)) ?? [req.record];
      return { erased: erased.map(String) };
    },
    async audit(req) {
      if (!driver.audit) throw new Unsupported("audit");
      return { audit: await driver.audit(field(req, "context", "string")) };
    },
  };
  const answer = async (line) => {
    let req;
    try { req = JSON.parse(line); } catch (exc) { return { id: null, ok: false, refused: false, error: errorOf(new BadRequest(`not a JSON line: ${exc.message}`)) }; }
    if (req === null || typeof req !== "object" || !Number.isInteger(req.id)) {
      return { id: null, ok: false, refused: false, error: { type: "BadRequest", message: "a request is an object with an integer id" } };
    }
    try {
      if (openError) return { ok: false, refused: true, error: openError };
      if (!Object.hasOwn(ops, req.op)) throw new BadRequest(`unknown op ${JSON.stringify(req.op)}`);
      if (req.op !== "open" && !opened) throw new BadRequest(`${req.op}: send open first`);
      return { ok: true, ...(await ops[req.op](req)) };
    } catch (exc) {
      const fault = exc instanceof BadRequest || exc instanceof Unsupported;
      const error = errorOf(exc);
      if (!fault && req.op === "open") openError = error;
      if (!fault) toStderr(exc?.stack ?? String(exc));
      return { ok: false, refused: !fault, error };
    }
  };
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve();
  lines.on("line", (line) => {
    queue = queue.then(async () => {
      const id = (() => { try { return JSON.parse(line)?.id ?? null; } catch { return null; } })();
      const out = await answer(line);
      send({ id: Number.isInteger(id) ? id : null, ...out, signals: signals.splice(0) });
    });
  });
  lines.on("close", () => { queue.then(async () => { await driver.close?.(); process.exit(0); }); });
}
