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
//
// Front door (images/README.md, "Front-door additions"): a driver offering the ops has the methods
// frontdoorOpen(case, trustRoot, fresh), frontdoorWrite(scope, text, label, signature, tags) ->
// {accepted, stored}, frontdoorRead(scope, query, k, tag) -> [{text, marker}] and, where its SUT
// verifies signatures of its own format, frontdoorMessage(scope, text, label, tags) -> bytes
// (trustRoot and signature arrive as Buffers, the write's signer as this.frontdoorSigner before each
// frontdoorWrite). The kit checks every request and answer shape as the Python kit does
// (images/driverkit/memlab_driver/frontdoor.py). A refusal must be the SUT's: an error thrown by
// frontdoorWrite or frontdoorRead whose innermost stack frame in a file (Node's own node:internal and
// native frames skipped, as a C builtin has no Python frame) is the driver's file (the script node
// was started with, or serve's {file}) or this kit is the driver failing, a fault (refused: false);
// any other error, the SUT's code innermost, passes as the SUT refusing. caseStore(volume, case,
// fresh, name) gives a case its own store, <volume>/frontdoor/<case>[/<name>], with kit.case_store's
// refusals.
import { existsSync, mkdirSync, realpathSync, writeSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
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

// ---- front door -----------------------------------------------------------------------------------
const CASE = /^[A-Za-z0-9_-]{1,64}$/;
const HEX = /^(?:[0-9a-f]{2}){1,512}$/;  // a key or a signature
export const MAX_TAGS = 32;
const KIT_FILE = fileURLToPath(import.meta.url);

/** A request's field as Python's field(): a fallback when absent or null, else of the JSON type. */
function optional(req, name, type, fallback) {
  return req[name] === null || !(name in req) ? fallback : field(req, name, type);
}

const isId = (v) => v === null || typeof v === "string" || (typeof v === "number" && Number.isInteger(v));

function scopeOf(req) {
  const found = field(req, "scope", "object");
  const keys = Object.keys(found).sort();
  if (keys.join(",") !== "session,tenant,user" || !Object.values(found).every(isId)) {
    throw new BadRequest(`${req.op}: scope must be {tenant, user, session}, each a string, an integer or null`);
  }
  return { tenant: found.tenant, user: found.user, session: found.session };
}

function hexOf(req, name) {
  const value = req[name] ?? null;
  if (value === null) return null;
  if (typeof value !== "string" || !HEX.test(value)) {
    throw new BadRequest(`${req.op}: ${name} must be lower-case hex (at most 512 bytes) or null`);
  }
  return Buffer.from(value, "hex");
}

/** <base>/frontdoor/<case>[/<name>]: a case's own store, kept after the row for the lab's read-back;
 *  its folder made. A fresh case whose store exists, or a reopened one whose store is gone, is refused. */
export function caseStore(base, kase, fresh, name = null) {
  let path = join(String(base), "frontdoor", kase);
  path = name ? join(path, name) : path;
  if (fresh === existsSync(path)) {
    throw new BadRequest(`frontdoor_open ${kase}: fresh=${fresh} but ${path} ${fresh ? "exists" : "does not exist"}`);
  }
  mkdirSync(name ? dirname(path) : path, { recursive: true });
  return path;
}

const real = (path) => { try { return realpathSync(path); } catch { return resolve(path); } };

/** The file of an error's innermost stack frame in a file (node:internal and native frames skipped). */
export function innermostFile(exc) {
  const stack = typeof exc?.stack === "string" ? exc.stack : "";
  for (const line of stack.split("\n")) {
    const frame = /^\s+at (?:.*?\((.*)\)|(?:async )?(.*))$/.exec(line);
    if (!frame) continue;
    const where = /^(.*?):\d+:\d+$/.exec(frame[1] ?? frame[2] ?? "")?.[1];
    if (!where || where.startsWith("node:") || !(where.startsWith("file://") || where.startsWith("/"))) continue;
    return real(where.startsWith("file://") ? fileURLToPath(where) : where);
  }
  return null;
}

/** Whether the innermost frame of exc is in the driver's own file or in this kit. */
export function raisedByDriver(exc, driverFile) {
  const where = innermostFile(exc);
  if (where === null) return false;
  const own = driverFile == null ? null : real(String(driverFile).startsWith("file://") ? fileURLToPath(driverFile) : String(driverFile));
  return where === own || where.startsWith(dirname(real(KIT_FILE)) + sep);
}

/** call(); an error the driver itself threw is a fault, the SUT's passes as a refusal. */
async function sutCall(op, driverFile, call) {
  try {
    return await call();
  } catch (exc) {
    if (exc instanceof BadRequest || exc instanceof Unsupported) throw exc;
    if (raisedByDriver(exc, driverFile)) {
      throw new BadRequest(`${op}: the driver failed, not the SUT: ${exc?.name ?? "Error"}: ${exc?.message ?? exc}`);
    }
    throw exc;
  }
}

function frontdoorOps(driver, driverFile) {
  const need = (method, op) => {
    if (typeof driver[method] !== "function") throw new Unsupported(op);
    return driver[method].bind(driver);
  };
  const tagsOf = (req) => {
    const tags = optional(req, "tags", "array", []);
    if (tags.length > MAX_TAGS || !tags.every((t) => typeof t === "string")) {
      throw new BadRequest(`${req.op}: tags must be at most ${MAX_TAGS} strings`);
    }
    return [...tags];
  };
  return {
    async frontdoor_open(req) {
      const kase = field(req, "case", "string");
      if (!CASE.test(kase)) throw new BadRequest("frontdoor_open: case must be 1-64 letters, digits, '_' or '-'");
      const trustRoot = hexOf(req, "trust_root");
      if (trustRoot === null) throw new BadRequest("frontdoor_open: trust_root (hex) is required");
      const fresh = field(req, "fresh", "boolean");
      await need("frontdoorOpen", "frontdoor_open")(kase, trustRoot, fresh);
      return {};
    },
    async frontdoor_message(req) {
      const scope = scopeOf(req), tags = tagsOf(req);
      const message = await need("frontdoorMessage", "frontdoor_message")(
        scope, field(req, "text", "string"), field(req, "label", "string"), tags);
      if (!(message instanceof Uint8Array) || !(message.length > 0 && message.length <= 1 << 20)) {
        throw new BadRequest("the driver's frontdoorMessage must return the message as bytes (at most 1 MiB)");
      }
      return { result: { message: Buffer.from(message).toString("hex") } };
    },
    async frontdoor_write(req) {
      const scope = scopeOf(req), tags = tagsOf(req);
      const write = need("frontdoorWrite", "frontdoor_write");
      driver.frontdoorSigner = hexOf(req, "signer");  // not signer: a driver may keep a key of its own by that name
      const text = field(req, "text", "string"), label = field(req, "label", "string");
      const signature = hexOf(req, "signature");
      const out = await sutCall("frontdoor_write", driverFile, () => write(scope, text, label, signature, tags));
      if (out === null || typeof out !== "object" || typeof out.accepted !== "boolean") {
        throw new BadRequest("the driver's frontdoorWrite must return {accepted: boolean, stored: ...}");
      }
      return { result: { accepted: out.accepted, stored: out.stored ?? null } };
    },
    async frontdoor_read(req) {
      const scope = scopeOf(req);
      const k = field(req, "k", "number");
      if (!Number.isInteger(k) || k < 1 || k > 1000) throw new BadRequest("frontdoor_read: k must be an integer from 1 to 1000");
      const tag = optional(req, "tag", "string", null);
      const read = need("frontdoorRead", "frontdoor_read");
      const query = field(req, "query", "string");
      const records = await sutCall("frontdoor_read", driverFile, () => read(scope, query, k, tag));
      if (!Array.isArray(records) || !records.every((r) => r !== null && typeof r === "object" && typeof r.text === "string"
          && (r.marker === undefined || r.marker === null || typeof r.marker === "string"))) {
        throw new BadRequest("the driver's frontdoorRead must return a list of {text: string, marker: string or null}");
      }
      return { records: records.map((r) => ({ text: r.text, marker: r.marker ?? null })) };
    },
  };
}

/** Answer every request line with driver's ops until stdin closes. `file`: the driver's own module
 *  (default: the script node runs), whose errors are faults, never the SUT's refusals. */
export function serve(driver, { file = process.argv[1] ?? null } = {}) {
  let opened = false, openError = null;
  const ops = {
    ...frontdoorOps(driver, file),
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
