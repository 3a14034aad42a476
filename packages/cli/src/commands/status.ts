import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { Api, keyRefused } from '../lib/api.js';
import { AxleCommand } from '../lib/base.js';
import { commandPaths } from '../lib/bins.js';
import { daemonPid } from '../lib/daemon-control.js';
import { EXIT } from '../lib/exit.js';
import { readText, withoutBom } from '../lib/files.js';
import { killSwitchOn } from '../lib/kill-switch.js';
import { axlePaths } from '../lib/paths.js';
import { isInstalled, registeredEntry } from '../clients/apply.js';
import { installedHookCommands } from '../clients/hooks.js';
import { CLIENTS } from '../clients/registry.js';
import { queuedSessions } from '../runner/sessions.js';

/**
 * Drafts waiting in the local queue. The extractor (its index brings the scrubber) is loaded only when there is a
 * queue: before capture first ran, status starts as fast as the other commands.
 */
async function pendingDrafts(queue: string): Promise<number> {
  if (!existsSync(queue)) return 0;
  const { DraftQueue } = await import('@axle/extractor');
  return (await new DraftQueue(queue).list('pending')).length;
}

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export default class Status extends AxleCommand {
  static override summary = 'Check the setup: server, key, client registrations, capture hooks, queue, kill switch';

  static override description =
    `A doctor: every check prints OK or a problem and what to do. Client updates sometimes rewrite
their settings; this notices a registration or hook that went missing or points at files that moved.
Exit codes: 0 all good, 5 a check failed.`;

  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status --json'];

  async run(): Promise<{ ok: boolean; checks: Check[] }> {
    const { api, config } = await this.api();
    const checks: Check[] = [];
    const add = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });

    let reachable = false;
    try {
      const health = await api.raw('GET', '/health');
      reachable = health.status === 200;
      add('server', reachable, reachable ? `${api.server} answers` : `${api.server} answered HTTP ${health.status}`);
    } catch (err) {
      add('server', false, (err as Error).message);
    }
    if (!config.api_key) add('key', false, 'not signed in: run `axle login`');
    else if (reachable) {
      const res = await new Api({ server: api.server, apiKey: config.api_key }).raw('GET', '/account/settings');
      const consent = res.body?.consent_granted === true ? 'consent granted' : 'no extraction consent';
      add(
        'key',
        res.status === 200,
        res.status === 200
          ? `valid for ${config.email ?? config.account_id ?? 'your account'} (${consent})`
          : keyRefused(res.status)
            ? `refused (HTTP ${res.status}): run \`axle login\``
            : `not checked: the server answered HTTP ${res.status}`,
      );
    }

    for (const def of CLIENTS) {
      if (!(await isInstalled(def))) continue;
      const text = await readText(def.config()).catch((err: NodeJS.ErrnoException) => err);
      if (text instanceof Error) {
        add(`${def.id}: mcp`, false, `${def.config()} cannot be read (${text.code ?? text.message})`);
        continue;
      }
      const entry =
        text === undefined
          ? undefined
          : (registeredEntry(def, withoutBom(text)) as
              | { command?: string; args?: string[]; env?: Record<string, string> }
              | undefined);
      if (!entry) {
        add(`${def.id}: mcp`, false, `axle is not registered in ${def.config()}: run \`axle setup\``);
        continue;
      }
      const missing = [entry.command, ...(entry.args ?? [])].filter(
        (p): p is string => typeof p === 'string' && isAbsolute(p) && !existsSync(p),
      );
      const keyOk = !config.api_key || entry.env?.SVC_API_KEY === config.api_key;
      const ok = missing.length === 0 && keyOk;
      add(
        `${def.id}: mcp`,
        ok,
        ok
          ? 'registered'
          : missing.length
            ? `points at missing ${missing.join(', ')}: run \`axle setup\``
            : 'holds another key: run `axle setup`',
      );
      if (def.hooks && config.capture?.enabled) {
        const hooks = installedHookCommands(
          withoutBom(await readText(def.hooks.file()).catch(() => undefined)) ?? '',
          def.hooks.events,
        );
        const absent = def.hooks.events.filter((e) => hooks[e]!.length === 0);
        const broken = Object.values(hooks)
          .flat()
          .flatMap(commandPaths)
          .filter((p) => !existsSync(p));
        const hooksOk = absent.length === 0 && broken.length === 0;
        const why = absent.length
          ? `missing for ${absent.join(', ')}`
          : `point at missing ${[...new Set(broken)].join(', ')}`;
        add(
          `${def.id}: hooks`,
          hooksOk,
          hooksOk ? `${def.hooks.events.join(', ')} installed` : `${why}: run \`axle setup\``,
        );
      }
    }

    const paths = axlePaths();
    const sessions = await queuedSessions(paths.sessions);
    const drafts = await pendingDrafts(paths.queue);
    add('queue', true, `${sessions} session(s) waiting for the runner, ${drafts} draft(s) not yet sent`);
    const disabled = await killSwitchOn();
    add('kill switch', true, disabled ? 'ON: all capture is paused (`axle kill-switch off` resumes)' : 'off');
    add('capture', true, config.capture?.enabled ? `on since ${config.capture.since}` : 'off');
    const pid = await daemonPid();
    add('daemon', true, pid ? `running (pid ${pid})` : 'not running');

    for (const c of checks) this.log(`${c.ok ? 'OK     ' : 'PROBLEM'}  ${c.name}: ${c.detail}`);
    const ok = checks.every((c) => c.ok);
    if (!ok) process.exitCode = EXIT.PARTIAL;
    return { ok, checks };
  }
}
