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
//
// Front door (frontdoor*; sut_profiles/openclaw-memory-md.yaml, the comment above frontdoor:):
// - each case its own folder store/frontdoor/<case>/ (caseStore): OpenClaw's state folder state/
//   (OPENCLAW_STATE_DIR: openclaw.sqlite, where OpenClaw keeps each memory file's provenance) and one
//   agent workspace per scope, workspaces/<the JSON array [tenant, user, session], percent-encoded>/
//   (integers stay numbers, a missing part null: two scopes never share a workspace). OpenClaw keys
//   an agent's memory on its workspace only, so the driver keeps scopes apart (separate-store).
// - write: the memory flush's append-only write tool on the workspace's MEMORY.md, built as
//   createOpenClawCodingTools builds it for a memory flush (agent-tools-g36ho974.mjs:760): the host
//   write tool and wrapToolMemoryFlushAppendOnlyWrite, both with OpenClaw's memory-write provenance
//   observer (createMemoryWriteProvenanceObserver, agent-tools.read-g6MfsPCZ.mjs:108), whose
//   resolveOriginClass gives the label: OpenClaw's own origin class, "untrusted" for a sender who is
//   not the owner or a tainted turn, "agent" for the owner (agent-tools-g36ho974.mjs:433). ORIGIN maps
//   the lab's word to OpenClaw's (user: agent, external: untrusted); recordMemoryArtifactWriteProvenance
//   (memory-artifact-provenance-p1TjNKv0.mjs:68) keeps it per file in openclaw.sqlite and decides.
//   The signature, the signer, the tags and the trust root go nowhere: OpenClaw signs nothing.
// - read: the workspace bootstrap an agent run is given in its system prompt
//   (resolveBootstrapFilesForRun and buildBootstrapContextForFiles, bootstrap-files-CT9ASknB.mjs:224
//   and :294), whatever the question: OpenClaw leaves out a MEMORY.md whose recorded origin is not the
//   owner's or the agent's (resolveIneligibleAutomaticMemoryFiles :180). The served records are the
//   entries of the injected MEMORY.md, a "- " line and the lines after it that do not start one; no
//   marker (OpenClaw leaves an untrusted file out, it does not mark it).
import { serve, BadRequest, caseStore } from "../driverkit-node/memlab_driver.mjs";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

/** The lab's label as OpenClaw's origin class (a vocabulary, not a decision: OpenClaw's provenance
 *  store decides what an origin class makes of the file). */
const ORIGIN = { user: "agent", external: "untrusted" };

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
             editTool: files.t,     // createHostWorkspaceEditTool
             provenance: files.p }; // createMemoryWriteProvenanceObserver
  }

  workspace(context) {
    const dir = join(this.root, "workspaces", encodeURIComponent(context));
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  // ---- front door ---------------------------------------------------------------------------------
  async frontdoorOpen(kase, trustRoot, fresh) {
    // trustRoot unused: OpenClaw takes no public key. The last case's openclaw.sqlite is closed through
    // OpenClaw first (closePluginStateDatabaseAsync): a handle it caches per state folder stays open else.
    await this.stateDb?.u();
    this.case = caseStore(this.root, kase, fresh);
    process.env.OPENCLAW_STATE_DIR = join(this.case, "state");  // OpenClaw's state: openclaw.sqlite
    mkdirSync(process.env.OPENCLAW_STATE_DIR, { recursive: true });
    if (!this.boot) {
      this.boot = await import(new URL("bootstrap-files-CT9ASknB.mjs", DIST));
      this.stateDb = await import(new URL("plugin-state-store-CgyXRuSI.mjs", DIST));
    }
  }

  scopeWorkspace(scope) {
    if (!this.case) throw new BadRequest("frontdoor_open first");
    const key = JSON.stringify([scope.tenant, scope.user, scope.session]);
    const dir = join(this.case, "workspaces", encodeURIComponent(key));
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  async frontdoorWrite(scope, text, label, signature, tags) {
    const ws = this.scopeWorkspace(scope);
    const { appendOnly, writeTool, provenance } = await this.fileTools();
    const origin = ORIGIN[label] ?? label;
    const observer = provenance({ mutationRoot: ws, workspaceDir: ws, resolveOriginClass: () => origin });
    const tool = appendOnly(writeTool(ws, { memoryWriteProvenance: observer }),
                            { root: ws, relativePath: MEMORY, memoryWriteProvenance: observer });
    const out = await tool.execute("memlab-frontdoor-write", { path: MEMORY, content: `- ${text}\n` });
    return { accepted: out?.details?.changed === true, stored: { file: MEMORY, origin: ORIGIN[label] ?? label } };
  }

  async frontdoorRead(scope, query, k, tag) {
    // the bootstrap takes no query, limit or filter: every entry of the injected MEMORY.md
    const ws = this.scopeWorkspace(scope);
    const config = { agents: { defaults: { workspace: ws } } };
    const warn = (message) => console.warn(`openclaw bootstrap: ${message}`);
    const files = await this.boot.c({ workspaceDir: ws, config, agentId: "main", warn });
    const served = this.boot.n(files, { config, agentId: "main", warn });
    const memory = served.find((file) => file.path === join(ws, MEMORY));
    const entries = [];
    for (const line of (memory?.content ?? "").split("\n")) {
      const head = LINE.exec(line);
      if (head) entries.push(head[1]);
      else if (line.trim() && entries.length) entries[entries.length - 1] += `\n${line}`;
      else if (line.trim()) entries.push(line);
    }
    return entries.map((text) => ({ text, marker: null }));
  }

  async close() {
    await this.stateDb?.u();  // closePluginStateDatabaseAsync: openclaw.sqlite closed through OpenClaw
  }

  describe() {
    return { sut: "openclaw", version: this.version, libraries: { node: process.versions.node },
             capabilities: { erasure: "record", order: true, metadata: false, snapshot: true, lifecycle: ["erase"] },
             configuration: { memory: "MEMORY.md in the agent's workspace", workspace: "workspaces/<context>",
                              read: "memory_get {path: MEMORY.md}",
                              frontdoor: { write: "memory-flush append-only write tool with the memory-write provenance observer",
                                           read: "the workspace bootstrap (injected MEMORY.md)",
                                           workspace: "frontdoor/<case>/workspaces/<[tenant, user, session]>",
                                           state: "frontdoor/<case>/state (OPENCLAW_STATE_DIR)" } } };
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
