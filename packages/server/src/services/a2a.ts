import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentCard, type Message, type Part, Role, Task, TaskState } from '@a2a-js/sdk';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  JsonRpcTransportHandler,
  type RequestContext,
  ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { CONTENT_ADVISORY, CONTENT_TRUST, framedWords, LIMITS, untrustedContent, withoutNul, z } from '@axle/sdk';
import { sha256Hex } from '../domain/ids.js';
import type { Clock } from '../clock.js';
import { a2aTasksStore } from '../store/a2a-tasks.js';
import type { Transactor } from '../store/queryable.js';
import type { KnowledgeService } from './knowledge.js';
import type { RateLimiter } from './rate-limit.js';
import type { SkillsService } from './skills.js';

/** How long a task stays readable with tasks/get (GetTask). */
const TASK_TTL_MS = 86_400_000;
/** Results per answer. */
const RESULTS = 5;
/** Longest text taken as a query (longer text is cut, not refused). */
const QUERY_MAX = 500;
/** Most tasks one ListTasks answer carries. */
const LIST_MAX = 50;
/** Most tasks of one context ListTasks reads (newest first); older ones are not listed. */
const LIST_SCAN = 1000;
/** A2A requests per caller address and minute (each message/send runs a search and stores a task). */
const A2A_RULE = { limit: 60, windowMs: 60_000 };
/** The protocol version a request without an A2A-Version header speaks (A2A 1.0 §3.2: absent means 0.3). */
const LEGACY_VERSION = '0.3';

export type A2ASkill = 'discover' | 'knowledge-search';

/**
 * Which card skill answers a text: an explicit `skill` (message metadata or a data part) wins; otherwise a request
 * naming a capability (API, MCP server, tool, service) is skill discovery, a question or problem is knowledge
 * search, and anything else is skill discovery.
 */
export function routeRequest(text: string, explicit?: unknown): A2ASkill {
  if (explicit === 'discover' || explicit === 'knowledge-search') return explicit;
  if (/\b(apis?|mcp|servers?|tools?|services?|sdks?|endpoints?|integrations?)\b/i.test(text)) return 'discover';
  if (/\b(how|why|what|error|errors|fix|fails?|failing|failed|issue|bug|workaround|learnings?)\b|\?/i.test(text))
    return 'knowledge-search';
  return 'discover';
}

/** The A2A card as served (0.3 fields plus the 1.0 `supportedInterfaces`), as JSON. */
export type A2ACardJson = Record<string, unknown>;

export interface A2AService {
  /** Counts one A2A request of `callerIp` against the per-address limit (429 past it). */
  take(callerIp: string): Promise<void>;
  /**
   * One JSON-RPC request: A2A 1.0 (SendMessage, GetTask…) when the A2A-Version header says 1.0, else A2A 0.3
   * (message/send, tasks/get…), as the 1.x SDK's own JSON-RPC endpoint dispatches.
   */
  jsonRpc(body: unknown, card: A2ACardJson, version: string | undefined): Promise<unknown>;
  /** The HTTP+JSON binding (A2A 1.0), served by the SDK's REST handler; paths relative to its mount point. */
  rest(req: IncomingMessage, res: ServerResponse, card: A2ACardJson): Promise<void>;
}

export interface A2ADeps {
  db: Transactor;
  clock: Clock;
  skills: SkillsService;
  knowledge: KnowledgeService;
  rateLimiter: RateLimiter;
}

const textPart = (text: string): Part =>
  ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }) as Part;
const dataPart = (data: Record<string, unknown>): Part =>
  ({
    content: { $case: 'data', value: data },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  }) as Part;

export function createA2AService({ db, clock, skills, knowledge, rateLimiter }: A2ADeps): A2AService {
  // Tasks live in the database (as A2A 1.0 JSON) so that any instance answers GetTask.
  const tasks: TaskStore = {
    async save(task) {
      const now = clock.now();
      await db.tx(async (q) => {
        await a2aTasksStore.deleteOlderThan(q, now - TASK_TTL_MS);
        const json = JSON.stringify(Task.toJSON(task));
        await a2aTasksStore.save(q, { id: task.id, contextId: task.contextId, json }, now);
      });
    },
    async load(id) {
      const json = await a2aTasksStore.load(db, id);
      return json === undefined ? undefined : Task.fromJSON(JSON.parse(json));
    },
    // Tasks belong to no account: a caller lists only the tasks of a context id it holds (a random UUID).
    // Filters, page tokens and includeArtifacts follow the SDK's own InMemoryTaskStore, over the context's newest
    // LIST_SCAN tasks.
    async list(params) {
      const pageSize = Math.min(params.pageSize || LIST_MAX, LIST_MAX);
      const rows = params.contextId ? await a2aTasksStore.byContext(db, params.contextId, LIST_SCAN) : [];
      const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
      let found = rows
        .map((r) => ({ key: `${r.updatedAt}|${r.id}`, task: Task.fromJSON(JSON.parse(r.task)) }))
        .filter(({ task }) => !params.status || task.status?.state === params.status)
        .filter(({ task }) => after === undefined || Date.parse(task.status?.timestamp ?? '') > after);
      const totalSize = found.length;
      if (params.pageToken) {
        const key = Buffer.from(params.pageToken, 'base64').toString('utf8');
        if (!/^\d+\|./.test(key)) throw new RequestMalformedError('Invalid page token.');
        const at = found.findIndex((f) => f.key === key);
        found = at === -1 ? [] : found.slice(at + 1);
      }
      const page = found.slice(0, pageSize);
      const nextPageToken =
        found.length > page.length ? Buffer.from(page[page.length - 1]!.key).toString('base64') : '';
      const tasks = page.map(({ task }) => (params.includeArtifacts ? task : { ...task, artifacts: [] }));
      return { tasks, nextPageToken, pageSize, totalSize };
    },
  };

  async function answer(skill: A2ASkill, query: string): Promise<{ data: Record<string, unknown>; summary: string }> {
    if (skill === 'discover') {
      const { results } = await skills.discover(query, {}, RESULTS);
      const names = results.map((s) => s.name).join(', ');
      return {
        data: { skill, query, results },
        summary: results.length ? `${results.length} skills: ${names}` : 'No matching skills.',
      };
    }
    const found = await knowledge.search({ query, limit: Math.min(RESULTS, LIMITS.knowledge.maxLimit) }, null);
    // The learnings' own words (titles, task contexts) reach the agent framed as every surface frames a body.
    const previews = found.results.map((r) => `${r.id}: ${r.title}\n${r.task_context}`).join('\n\n');
    return {
      data: {
        skill,
        query,
        content_advisory: CONTENT_ADVISORY,
        content_trust: CONTENT_TRUST,
        // A client may hand the data part to the model as it is: each result's words framed there too.
        results: framedWords(found.results, sha256Hex),
        pricing: found.pricing,
      },
      summary: found.results.length
        ? `${found.results.length} learnings (snippets; unlock one with GET /knowledge/{id}). ${CONTENT_ADVISORY}\n` +
          untrustedContent(previews, sha256Hex(previews))
        : 'No matching learnings.',
    };
  }

  const agentMessage = (taskId: string, contextId: string, text: string): Message => ({
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });

  const executor: AgentExecutor = {
    async execute({ userMessage, taskId, contextId }: RequestContext, bus: ExecutionEventBus) {
      const texts = userMessage.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));
      const dataSkill = userMessage.parts.flatMap((p) =>
        p.content?.$case === 'data' && typeof p.content.value?.skill === 'string' ? [p.content.value.skill] : [],
      )[0];
      const explicit = userMessage.metadata?.skill ?? dataSkill;
      const query = texts.join('\n').trim().slice(0, QUERY_MAX);
      const status = (state: TaskState, text: string) =>
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            timestamp: new Date(clock.now()).toISOString(),
            message: agentMessage(taskId, contextId, text),
          },
          metadata: undefined,
        });
      // The task keeps what was used of the message, not the message: a request of up to the body limit
      // would otherwise be stored as a task row of that size, for a day.
      const named = explicit === 'discover' || explicit === 'knowledge-search' ? explicit : undefined;
      const kept: Message = {
        messageId: userMessage.messageId,
        contextId,
        taskId,
        role: Role.ROLE_USER,
        parts: [...(query ? [textPart(query)] : []), ...(dataSkill && named ? [dataPart({ skill: named })] : [])],
        metadata: userMessage.metadata?.skill !== undefined && named ? { skill: named } : undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
          artifacts: [],
          history: [kept],
          metadata: undefined,
        }),
      );
      if (!query) {
        bus.publish(
          status(TaskState.TASK_STATE_REJECTED, 'Send the request as a text part, e.g. "find a weather API".'),
        );
        bus.finished();
        return;
      }
      const skill = routeRequest(query, explicit);
      const { data, summary } = await answer(skill, query);
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: randomUUID(),
            name: skill === 'discover' ? 'skills' : 'learnings',
            description: '',
            parts: [dataPart(data)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(status(TaskState.TASK_STATE_COMPLETED, summary));
      bus.finished();
    },
    // Every task finishes within its SendMessage; there is nothing running to cancel.
    async cancelTask() {},
  };

  // One request handler per card (the card carries the base URL, known once the server listens).
  let built: { key: string; handler: DefaultRequestHandler; rest: Promise<RestApp> } | undefined;
  function handlerFor(card: A2ACardJson) {
    const key = JSON.stringify(card);
    if (built?.key !== key) {
      const handler = new DefaultRequestHandler(AgentCard.fromJSON(card), tasks, executor);
      built = { key, handler, rest: restApp(handler) };
    }
    return built;
  }

  return {
    async take(callerIp) {
      await db.tx((q) => rateLimiter.take(`a2a:ip:${callerIp}`, A2A_RULE, q));
    },
    async jsonRpc(body, card, version) {
      const { handler } = handlerFor(card);
      const requested = version || LEGACY_VERSION;
      const context = new ServerCallContext({ requestedVersion: requested });
      const invalid = invalidParams(body);
      if (invalid) return invalid;
      const answer =
        requested === LEGACY_VERSION
          ? await new LegacyJsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, context)
          : await new JsonRpcTransportHandler(handler).handle(body as Record<string, unknown>, context);
      // The SDK answers SubscribeToTask with a stream even though the card says streaming: false (it refuses
      // SendStreamingMessage, and REST refuses both): answer the A2A UnsupportedOperation error instead.
      if (answer && typeof answer === 'object' && Symbol.asyncIterator in answer) {
        await (answer as AsyncGenerator).return?.(undefined);
        const id = (body as { id?: unknown }).id;
        return {
          jsonrpc: '2.0',
          id: typeof id === 'string' || typeof id === 'number' ? id : null,
          error: {
            code: -32004,
            message: 'Streaming (and thus resubscription) is not supported.',
            data: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'UNSUPPORTED_OPERATION',
                domain: 'a2a-protocol.org',
              },
            ],
          },
        };
      }
      return masked(answer);
    },
    async rest(req, res, card) {
      const app = await handlerFor(card).rest;
      // Resolved once the router has answered, so nothing of the caller's runs while the answer is being written.
      await new Promise<void>((resolve) => {
        res.once('finish', resolve);
        res.once('close', resolve);
        app(req, res);
      });
    },
  };
}

type RestApp = (req: IncomingMessage, res: ServerResponse) => void;

/** The SDK's HTTP+JSON router in an express app of its own; a failure past it answers a plain JSON 500. */
async function restApp(handler: DefaultRequestHandler): Promise<RestApp> {
  const [{ default: express }, { restHandler, UserBuilder }] = await Promise.all([
    import('express'),
    import('@a2a-js/sdk/server/express'),
  ]);
  const app = express();
  app.disable('x-powered-by');
  app.use((req: import('express').Request, res: import('express').Response, next: () => void) => {
    const refuse = (message: string) =>
      res.status(400).json({ error: { code: 400, status: 'INVALID_ARGUMENT', message, details: [] } });
    // The router decodes the path's segments (a task id among them) and would fail on one it cannot decode.
    const segments = decodedSegments(req.path);
    if (!segments) return refuse('Invalid request: a path segment is not valid percent-encoding');
    // What the SDK takes for granted of a message (it answers 500 with a JavaScript error text otherwise).
    const [where, invalid] =
      req.method === 'POST' && req.path.startsWith('/message:')
        ? ['body', SendParams.safeParse(req.body).error]
        : req.method === 'GET' && req.path === '/tasks'
          ? ['query', ListParams.safeParse(req.query).error]
          : ['path', PathSegments.safeParse(segments).error];
    if (invalid) {
      const issue = invalid.issues[0]!;
      return refuse(`Invalid request: ${[where, ...issue.path].join('.')}: ${issue.message}`);
    }
    // An internal error keeps its status but not its text, which is the SDK's or JavaScript's.
    const json = res.json.bind(res);
    res.json = (body: unknown) =>
      json(
        res.statusCode >= 500
          ? { error: { code: res.statusCode, status: 'INTERNAL', message: 'internal error', details: [] } }
          : body,
      );
    next();
  });
  app.use(restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use((_req: unknown, res: import('express').Response) => {
    res.status(404).json({ error: { code: 404, status: 'NOT_FOUND', message: 'No such A2A method', details: [] } });
  });
  app.use((_err: unknown, _req: unknown, res: import('express').Response, _next: unknown) => {
    res.status(500).json({ error: { code: 500, status: 'INTERNAL', message: 'internal error', details: [] } });
  });
  return app as unknown as RestApp;
}

const PartShape = z.object({}).passthrough();
/**
 * Ids a client may choose. The task row keeps each several times over (task, history, status message, artifact),
 * so they are bounded like the text taken from a message.
 */
const MAX_ID = 128;
const ClientId = withoutNul(z.string().max(MAX_ID, `at most ${MAX_ID} characters`));
/** A task's id is a UUID or a taskId a client chose: a longer one names no task, and is neither looked up nor echoed. */
const TaskParams = z.object({
  id: ClientId.min(1),
  historyLength: z.number().int().nonnegative().optional(),
});
const SendParams = z
  .object({
    message: z
      .object({
        messageId: ClientId.min(1),
        contextId: ClientId.nullish(),
        taskId: ClientId.nullish(),
        parts: z.array(PartShape),
      })
      .passthrough(),
  })
  .passthrough();
/** The segments of a URL path decoded, or undefined when one is not valid percent-encoding. */
function decodedSegments(path: string): string[] | undefined {
  try {
    return path.split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
}
/** A task id in the path reaches the store like one in a body. */
const PathSegments = z.array(withoutNul(z.string()));
/** ListTasks filters on the context a client chose. */
const ListParams = z.object({ contextId: ClientId.optional() }).passthrough();
/** What the SDK's handlers take for granted of each method's params (it answers -32603 otherwise). */
const PARAMS: Record<string, z.ZodType> = {
  'message/send': SendParams,
  'message/stream': SendParams,
  SendMessage: SendParams,
  SendStreamingMessage: SendParams,
  'tasks/get': TaskParams,
  'tasks/cancel': TaskParams,
  GetTask: TaskParams,
  CancelTask: TaskParams,
  ListTasks: ListParams,
};

/**
 * A request whose params are not of the method's shape is refused here, -32602 with a plain message: the SDK would
 * reach into them and answer -32603 with a JavaScript error text.
 */
function invalidParams(body: unknown): Record<string, unknown> | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { method, params, id } = body as { method?: unknown; params?: unknown; id?: unknown };
  const schema = typeof method === 'string' ? PARAMS[method] : undefined;
  const parsed = schema?.safeParse(params);
  if (!parsed || parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code: -32602, message: `Invalid params: ${['params', ...issue.path].join('.')}: ${issue.message}` },
  };
}

/** An internal error keeps its code but not its text, which is the SDK's or JavaScript's. */
function masked(answer: unknown): unknown {
  const error = (answer as { error?: { code?: unknown } } | undefined)?.error;
  if (error?.code !== -32603) return answer;
  return { ...(answer as object), error: { code: -32603, message: 'Internal error' } };
}
