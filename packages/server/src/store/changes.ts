/** What instances keep in memory from the database: a write on one instance tells every instance to reload it. */
export type Topic = 'learning_vectors' | 'catalog';

export interface Changes {
  /** After a commit that changed `topic`: this instance's subscribers run (awaited), then every other instance's. */
  publish(topic: Topic): Promise<void>;
  /** `reload` runs on each change of `topic`, and when the channel is back from a lost connection (changes may be missed). */
  subscribe(topic: Topic, reload: () => unknown): void;
  close(): Promise<void>;
}

/** Subscribers by topic, each run and its failure left to the subscriber (a reload must not break the channel). */
export class Subscribers {
  private readonly byTopic = new Map<Topic, Array<() => unknown>>();
  add(topic: Topic, reload: () => unknown): void {
    this.byTopic.set(topic, [...(this.byTopic.get(topic) ?? []), reload]);
  }
  get size(): number {
    return this.byTopic.size;
  }
  async run(topic?: Topic): Promise<void> {
    const runs: Array<Promise<unknown>> = [];
    for (const [t, reloads] of this.byTopic)
      if (topic === undefined || t === topic)
        for (const reload of reloads)
          runs.push(
            Promise.resolve()
              .then(reload)
              .catch(() => undefined),
          );
    await Promise.all(runs);
  }
}

/** SQLite: one instance per database file, so a change is told in process. */
export function inProcessChanges(): Changes {
  const subscribers = new Subscribers();
  return {
    publish: (topic) => subscribers.run(topic),
    subscribe: (topic, reload) => subscribers.add(topic, reload),
    async close() {},
  };
}
