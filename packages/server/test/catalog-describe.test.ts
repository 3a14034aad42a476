import { describe, expect, it } from 'vitest';
import { mcpDescription, ownNameTag } from '../src/catalog/compose.js';
import { CATEGORY_GLOSS, productName, restatesName, synthesizeDescription } from '../src/catalog/describe.js';

describe('restatesName', () => {
  it('finds descriptions that only give the name back, with MCP boilerplate around it', () => {
    expect(restatesName('', ['clickhouse', 'mcp-clickhouse'])).toBe(true);
    expect(restatesName('Official ClickHouse MCP Server', ['clickhouse', 'mcp-clickhouse'])).toBe(true);
    expect(restatesName('MCP server for Bing Search API', ['leehanchung', 'bing-search-mcp'])).toBe(true);
    expect(restatesName("Codacy's MCP Server implementation", ['codacy', 'codacy-mcp-server'])).toBe(true);
    expect(restatesName('A consul MCP Server (modelcontextprotocol)', ['kocierik', 'consul-mcp-server'])).toBe(true);
    // Glued repository names: `ynabmcpserver` holds ynab.
    expect(restatesName('YNAB MCP server', ['chuckbryan', 'ynabmcpserver'])).toBe(true);
    // A link says nothing either.
    expect(restatesName('https://pypi.org/project/mcp-prefect/0.1.0/', ['allen-munsch', 'mcp-prefect'])).toBe(true);
  });

  it('keeps a description with one word of its own (near misses)', () => {
    expect(restatesName('MCP server for querying InfluxDB', ['idoru', 'influxdb-mcp-server'])).toBe(false);
    expect(restatesName('Official ClickHouse MCP Server for analytics', ['clickhouse', 'mcp-clickhouse'])).toBe(false);
    expect(restatesName('JSON handling and processing mcp server', ['gongrzhe', 'json-mcp-server'])).toBe(false);
    // The word must be one of the names, not merely inside a longer word of the description.
    expect(restatesName('Snowflake warehouse', ['snow'])).toBe(false);
  });
});

describe('productName', () => {
  it('takes the restated description less its boilerplate, keeping inner joining words', () => {
    expect(productName('Official ClickHouse MCP Server', '', 'mcp-clickhouse')).toBe('ClickHouse');
    expect(productName('MCP server for Bing Search API', '', 'bing-search-mcp')).toBe('Bing Search');
    expect(productName("Codacy's MCP Server implementation", '', 'codacy-mcp-server')).toBe('Codacy');
    expect(productName('Billing and cost management.', 'AWS Billing and Cost Management', 'x')).toBe(
      'Billing and cost management',
    );
    expect(productName('Model Context Protocol with Neo4j', '', 'mcp-neo4j')).toBe('Neo4j');
  });

  it('falls back to the title (without Archived/Reference), the repository name, then the owner', () => {
    expect(productName('', 'Slack (Archived)', 'slack')).toBe('Slack');
    expect(productName('', '', 'mcp-snowflake-server')).toBe('snowflake');
    expect(productName('', '', 'ynabmcpserver')).toBe('ynab');
    expect(productName('', '', 'mcp-server', 'integration-app')).toBe('integration app');
    expect(productName('https://pypi.org/project/mcp-prefect/', '', 'mcp-prefect')).toBe('prefect');
  });
});

describe('synthesizeDescription', () => {
  it('names the product, what its category holds, its topics and its first tools', () => {
    expect(
      synthesizeDescription({
        product: 'Shopify',
        category: 'payment-financial',
        topics: ['ecommerce'],
        tools: [
          { name: 'list_products', description: '' },
          { name: 'createOrder', description: '' },
        ],
      }),
    ).toBe(
      `Shopify MCP server for ${CATEGORY_GLOSS['payment-financial']}. Topics: ecommerce. Tools: list products, create order.`,
    );
  });

  it('says only the name when nothing placed the server, and cuts a long tool list', () => {
    expect(synthesizeDescription({ product: 'Shodan', topics: [], tools: [] })).toBe('Shodan MCP server.');
    const tools = Array.from({ length: 10 }, (_, i) => ({ name: `tool_${i}`, description: '' }));
    const text = synthesizeDescription({ product: 'Acme', topics: [], tools });
    expect(text).toContain('tool 7, …');
    expect(text).not.toContain('tool 8');
  });
});

describe('mcpDescription', () => {
  const entry = {
    names: ['isaacwasserman', 'mcp-snowflake-server'],
    title: '',
    repo: 'mcp-snowflake-server',
    owner: 'isaacwasserman',
    topics: [],
    tools: [],
  };

  it('keeps a description that says something, whatever the category', () => {
    expect(mcpDescription({ ...entry, description: 'Query Snowflake warehouses' }, 'storage-state')).toBe(
      'Query Snowflake warehouses',
    );
  });

  it('replaces an empty or name-only description', () => {
    expect(mcpDescription({ ...entry, description: '' }, 'storage-state')).toBe(
      `snowflake MCP server for ${CATEGORY_GLOSS['storage-state']}.`,
    );
    expect(mcpDescription({ ...entry, description: 'Snowflake MCP Server' }, undefined)).toBe('Snowflake MCP server.');
  });
});

describe('ownNameTag', () => {
  it("recognises a Docker tag that is the server's own name, with or without -mcp", () => {
    expect(ownNameTag('wikipedia-mcp', ['wikipedia-mcp', 'Wikipedia'])).toBe(true);
    expect(ownNameTag('line', ['line-mcp', 'LINE'])).toBe(true);
    expect(ownNameTag('Google Maps', ['google-maps-mcp', 'Google Maps (Archived)'])).toBe(true);
    // Near misses: a word of the title, a topic.
    expect(ownNameTag('hashicorp', ['terraform', 'Hashicorp Terraform'])).toBe(false);
    expect(ownNameTag('search', ['brave', 'Brave Search'])).toBe(false);
  });
});
