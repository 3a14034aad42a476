import { randomUUID } from 'node:crypto';
import type { AgentCard, Message, Task } from '@a2a-js/sdk';
import {
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  JsonRpcTransportHandler,
  type RequestContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { CONTENT_ADVISORY, CONTENT_TRUST, LIMITS, untrustedContent } from '@axle/sdk';
import { sha256Hex } from '../domain/ids.js';
import type { Clock } from '../clock.js';
import { a2aTasksStore } from '../store/a2a-tasks.js';
import type { Database } from '../store/db.js';
import type { KnowledgeService } from './knowledge.js';
import type { RateLimiter } from './rate-limit.js';
import type { SkillsService } from './skills.js';

/** How long a task stays readable with tasks/get. */
const TASK_TTL_MS = 86_400_000;
/** Results per answer. */
const RESULTS = 5;
/** Longest text taken as a query (longer text is cut, not refused). */
const QUERY_MAX = 500;
/** A2A requests per caller address and minute (each message/send runs a search and stores a task). */
const A2A_RULE = { limit: 60, windowMs: 60_000 };

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

export interface A2AService {
  /** One A2A JSON-RPC request (message/send, tasks/get…) against the card it is served under, from `callerIp`. */
  handle(body: unknown, card: AgentCard, callerIp: string): Promise<unknown>;
}

export interface A2ADeps {
  db: Database;
  clock: Clock;
  skills: SkillsService;
  knowledge: KnowledgeService;
  rateLimiter: RateLimiter;
}

export function createA2AService({ db, clock, skills, knowledge, rateLimiter }: A2ADeps): A2AService {
  // Tasks live in the database so that any instance answers tasks/get.
  const tasks: TaskStore = {
    async save(task: Task) {
      const now = clock.now();
      await db.tx(async (q) => {
        await a2aTasksStore.deleteOlderThan(q, now - TASK_TTL_MS);
        await a2aTasksStore.save(q, { id: task.id, contextId: task.contextId, json: JSON.stringify(task) }, now);
      });
    },
    async load(id: string) {
      const json = await a2aTasksStore.load(db, id);
      return json === undefined ? undefined : (JSON.parse(json) as Task);
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
        results: found.results,
        pricing: found.pricing,
      },
      summary: found.results.length
        ? `${found.results.length} learnings (snippets; unlock one with GET /knowledge/{id}). ${CONTENT_ADVISORY}\n` +
          untrustedContent(previews, sha256Hex(previews))
        : 'No matching learnings.',
    };
  }

  const executor: AgentExecutor = {
    async execute({ userMessage, taskId, contextId }: RequestContext, bus: ExecutionEventBus) {
      const texts = userMessage.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : []));
      const dataSkill = userMessage.parts.find((p) => p.kind === 'data' && typeof p.data.skill === 'string');
      const explicit = userMessage.metadata?.skill ?? (dataSkill?.kind === 'data' ? dataSkill.data.skill : undefined);
      const query = texts.join('\n').trim().slice(0, QUERY_MAX);
      const status = (state: 'completed' | 'rejected', text: string) => ({
        kind: 'status-update' as const,
        taskId,
        contextId,
        final: true,
        status: {
          state,
          timestamp: new Date(clock.now()).toISOString(),
          message: agentMessage(taskId, contextId, text),
        },
      });
      // The task keeps what was used of the message, not the message: a request of up to the body limit
      // would otherwise be stored as a task row of that size, for a day.
      const named = explicit === 'discover' || explicit === 'knowledge-search' ? explicit : undefined;
      const kept: Message = {
        kind: 'message',
        role: 'user',
        messageId: userMessage.messageId,
        taskId,
        contextId,
        parts: [
          ...(query ? [{ kind: 'text' as const, text: query }] : []),
          ...(dataSkill && named ? [{ kind: 'data' as const, data: { skill: named } }] : []),
        ],
        ...(userMessage.metadata?.skill !== undefined && named && { metadata: { skill: named } }),
      };
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [kept] });
      if (!query) {
        bus.publish(status('rejected', 'Send the request as a text part, e.g. "find a weather API".'));
        bus.finished();
        return;
      }
      const skill = routeRequest(query, explicit);
      const { data, summary } = await answer(skill, query);
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: skill === 'discover' ? 'skills' : 'learnings',
          parts: [{ kind: 'data', data }],
        },
      });
      bus.publish(status('completed', summary));
      bus.finished();
    },
    // Every task finishes within its message/send; there is nothing running to cancel.
    async cancelTask() {},
  };

  return {
    async handle(body, card, callerIp) {
      await db.tx((q) => rateLimiter.take(`a2a:ip:${callerIp}`, A2A_RULE, q));
      return new JsonRpcTransportHandler(new DefaultRequestHandler(card, tasks, executor)).handle(body);
    },
  };
}

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    kind: 'message',
    role: 'agent',
    messageId: randomUUID(),
    taskId,
    contextId,
    parts: [{ kind: 'text', text }],
  };
}
