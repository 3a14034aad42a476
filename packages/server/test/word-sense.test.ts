import { describe, expect, it } from 'vitest';
import { termStems } from '../src/domain/term-coverage.js';
import { otherSense } from '../src/domain/word-sense.js';

const record = (id: string, description: string, category = 'storage-state', tags: string[] = []) => ({
  id,
  name: id,
  description,
  tags,
  category,
});
const options = { minStems: 3, maxStems: 6, voters: 3, quorum: 2 };

describe('otherSense', () => {
  const stems = termStems(['publish', 'events', 'message', 'queue']);
  const added = termStems(['kafka', 'rabbitmq']);
  const pool = [
    record('ticketmaster', 'Search events, attractions, or venues', 'data-processing'),
    record('rabbitmq', 'MCP server for interacting with RabbitMQ'),
    record('msk', 'Managed Kafka cluster operations'),
    record('pubsub', 'Publish a message to a topic'),
  ];

  it('is a record holding one request word and no word the vocabulary added, others holding them', () => {
    expect(otherSense(stems, added, pool, options)).toEqual(new Set(['ticketmaster']));
  });
  it('is not a record holding two request words, or an added word', () => {
    expect(otherSense(stems, added, pool, options).has('pubsub')).toBe(false);
    expect(otherSense(stems, added, pool, options).has('msk')).toBe(false);
  });
  it('is not a record of the category the records holding an added word share', () => {
    const inSense = record('eventbus', 'Route events between services');
    expect(otherSense(stems, added, [...pool, inSense], options).has('eventbus')).toBe(false);
  });
  it('is none when the records holding an added word share no category', () => {
    const split = [pool[0], pool[1], record('kafka-docs', 'Kafka documentation', 'web-interaction')];
    expect(otherSense(stems, added, split, { ...options, voters: 2 })).toEqual(new Set());
  });
  it('is none when the vocabulary added nothing, or the request has too few or too many words', () => {
    expect(otherSense(stems, [], pool, options)).toEqual(new Set());
    expect(otherSense(termStems(['events', 'queue']), added, pool, options)).toEqual(new Set());
    const long = termStems(['publish', 'events', 'message', 'queue', 'every', 'morning', 'from', 'orders']);
    expect(otherSense(long, added, pool, options)).toEqual(new Set());
  });
});
