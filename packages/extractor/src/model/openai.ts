import { Agent, request } from 'undici';
import { isRecord } from '../readers/line-parser.js';
import type { Model, ModelInput } from './model.js';
import { SYSTEM_PROMPT, userPrompt } from './prompt.js';

export interface OpenAIModelConfig {
  /** e.g. `http://localhost:11434/v1` or `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Whole-request budget (headers and body). */
  timeoutMs?: number;
  temperature?: number;
}

/** Raised for anything that makes a chunk's answer unusable; the pipeline turns it into an ExtractionError. */
export class ModelError extends Error {
  override name = 'ModelError';
}

/**
 * Reads the model's reply strictly: the message content must be a JSON object `{learnings: [...]}`
 * (one surrounding Markdown code fence is tolerated, since many local models add one unasked).
 */
export function parseModelReply(content: string): unknown[] {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(content);
  const text = fenced?.[1] ?? content;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ModelError(`model reply is not JSON (${content.length} chars)`);
  }
  if (!isRecord(value) || !Array.isArray(value.learnings)) {
    throw new ModelError('model reply lacks a "learnings" array');
  }
  return value.learnings;
}

/** An OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio). */
export class OpenAIChatModel implements Model {
  readonly name: string;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly dispatcher: Agent;

  constructor(private readonly config: OpenAIModelConfig) {
    this.name = `openai-compatible:${config.model}`;
    this.url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.timeoutMs = config.timeoutMs ?? 120_000;
    this.dispatcher = new Agent({ headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
  }

  async extract(input: ModelInput): Promise<unknown[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const payload = {
      model: this.config.model,
      temperature: this.config.temperature ?? 0,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: userPrompt(input) },
      ],
    };
    let status: number;
    let raw: string;
    try {
      const res = await request(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(payload),
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.statusCode;
      raw = await res.body.text();
    } catch (err) {
      const e = err as Error;
      const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError' || /timeout/i.test(e.name + e.message);
      throw new ModelError(
        timedOut ? `model request timed out after ${this.timeoutMs} ms` : `model request failed: ${e.message}`,
      );
    }
    if (status < 200 || status >= 300) throw new ModelError(`model endpoint answered HTTP ${status}`);
    let completion: unknown;
    try {
      completion = JSON.parse(raw);
    } catch {
      throw new ModelError('model endpoint answered a body that is not JSON');
    }
    const choice = isRecord(completion) && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
    const content = isRecord(choice) && isRecord(choice.message) ? choice.message.content : undefined;
    if (typeof content !== 'string') throw new ModelError('completion has no choices[0].message.content string');
    return parseModelReply(content);
  }

  /** Frees pooled connections; call when the model is no longer needed. */
  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
