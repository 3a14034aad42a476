#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { readConfig } from './config.js';
import { createMcpServer } from './server.js';

// stdout carries the protocol: nothing else may be written there.
await createMcpServer(readConfig()).connect(new StdioServerTransport());
