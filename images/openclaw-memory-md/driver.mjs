// Driver of OpenClaw (npm openclaw 2026.9.6): the agent's long-term memory file MEMORY.md, written
// with the agent's memory-flush append tool, read with its memory_get tool, erased with its edit
// tool. Offline: no gateway, no model, no key, no network.
//
// OpenClaw keeps memory as plain Markdown in the agent's workspace; one workspace per context,
// workspaces/<context>/ in volume store (the context percent-encoded as one folder name), with
// agents.defaults.workspace pointing at it. A record is one line "- <text>" of MEMORY.md.
//
// - write: the write tool wrapped as a memory flush wraps it (append-only, to MEMORY.md only):
//   createHostWorkspaceWriteTool + wrapToolMemoryFlushAppendOnlyWrite, execute({path, content}).
// - read: memory_get (createMemoryGetTool, the tool a model's call reaches) with {path: "MEMORY.md"};
//   the served records are the "- " lines of the text it returns, in order.
// - erase: the agent's edit tool (createHostWorkspaceEditTool) replacing the record's line with "".
// The record id is the first 16 hex digits of SHA-256 over the text (OpenClaw keeps no id).
//
// The tools are imported from the package's dist chunks by file name: the package exports no
// entry for them, and the chunk names are fixed by the exact version package-lock.json pins.
import { serve, BadRequest } from "../driverkit-node/memlab_driver.mjs";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const DIST = new URL("./node_modules/openclaw/dist/", import.meta.url);
const PACKAGE = new URL("./node_modules/openclaw/package.json", import.meta.url);
const MEMORY = "MEMORY.md";
const LINE = /^- (.+)$/;

const entryId = (text) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);

class OpenClawMemoryDriver {
  async open(volumes, config) {
    if (!volumes.store) throw new BadRequest(`needs volume store; the profile declares ${Object.keys(volumes)}`);
    this.root = volumes.store;
    this.memoryGet = (await import(new URL("tools-BQGDduQH.mjs", DIST))).createMemoryGetTool;
    this.version = (await import(PACKAGE, { with: { type: "json" } })).default.version;
  }

  async fileTools() {
    // loaded at the first write or erase only: most starts of a trial just read
    const files = await import(new URL("agent-tools.read-g6MfsPCZ.mjs", DIST));
    // the chunk's exports, as its export line names them: d, n and t
    return { appendOnly: files.d,   // wrapToolMemoryFlushAppendOnlyWrite
             writeTool: files.n,    // createHostWorkspaceWriteTool
             editTool: files.t };   // createHostWorkspaceEditTool
  }

  workspace(context) {
    const dir = join(this.root, "workspaces", encodeURIComponent(context));
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  describe() {
    return { sut: "openclaw", version: this.version, libraries: { node: process.versions.node },
             capabilities: { erasure: "record", order: true, metadata: false, snapshot: true, lifecycle: ["erase"] },
             configuration: { memory: "MEMORY.md in the agent's workspace", workspace: "workspaces/<context>",
                              read: "memory_get {path: MEMORY.md}" } };
  }

  async write(context, text) {
    if (text.includes("\n")) throw new BadRequest("a record is one line of MEMORY.md: no newline in text");
    const ws = this.workspace(context);
    const { appendOnly, writeTool } = await this.fileTools();
    const tool = appendOnly(writeTool(ws), { root: ws, relativePath: MEMORY });
    await tool.execute("memlab-write", { path: MEMORY, content: `- ${text}\n` });
    return { id: entryId(text), text };
  }

  async served(context) {
    const ws = this.workspace(context);
    const tool = this.memoryGet({ config: { agents: { defaults: { workspace: ws } } }, agentId: "main" });
    if (!tool) throw new Error("memory_get is not available for this agent (memory search disabled)");
    const { details } = await tool.execute("memlab-read", { path: MEMORY });
    if (details.status === "not_found") return [];
    if (details.status !== "ok") throw new Error(`memory_get: ${details.status}: ${details.error ?? ""}`);
    return details.text.split("\n").map((line) => LINE.exec(line)?.[1]).filter((t) => t !== undefined);
  }

  async read(context) {
    return (await this.served(context)).map((text) => ({ id: entryId(text), text, meta: {} }));
  }

  async eraseRecord(context, id) {
    const text = (await this.served(context)).find((t) => entryId(t) === id);
    if (text === undefined) throw new Error(`no entry ${id} in the memory of ${JSON.stringify(context)}`);
    const ws = this.workspace(context);
    const { editTool } = await this.fileTools();
    await editTool(ws).execute("memlab-erase", { path: MEMORY, edits: [{ oldText: `- ${text}\n`, newText: "" }] });
    return [id];
  }
}

serve(new OpenClawMemoryDriver());
