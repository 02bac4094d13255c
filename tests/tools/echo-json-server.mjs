// An MCP server over streamable HTTP that answers every POST with one JSON body
// (`enableJsonResponse`), never an event stream: the other kind of upstream, for
// `bench-host.mjs --json-upstream`. It has server-everything's `echo` tool and nothing else,
// on the official TS SDK, one session per `initialize`.
//
//   node tests/tools/echo-json-server.mjs [PORT]     prints "listening on port N" on stderr
import http from "node:http";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const ECHO = {
  name: "echo",
  description: "Echoes back the input string",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string", description: "Message to echo" } },
    required: ["message"],
  },
};

function newServer() {
  const server = new Server({ name: "echo-json", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [ECHO] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    if (req.params.name !== "echo") throw new Error(`unknown tool ${req.params.name}`);
    return { content: [{ type: "text", text: `Echo: ${req.params.arguments?.message ?? ""}` }] };
  });
  return server;
}

async function readJson(req) {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body ? JSON.parse(body) : undefined;
}

const sessions = new Map(); // session id → transport
const httpServer = http.createServer(async (req, res) => {
  try {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sid = req.headers["mcp-session-id"];
    let transport = sid ? sessions.get(sid) : undefined;
    if (sid && !transport) return res.writeHead(404).end(`no session ${sid}`);
    if (!transport) {
      if (body?.method !== "initialize") return res.writeHead(400).end("send initialize first");
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500).end(String(e?.message ?? e));
  }
});
httpServer.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  process.stderr.write(`listening on port ${httpServer.address().port}\n`);
});
