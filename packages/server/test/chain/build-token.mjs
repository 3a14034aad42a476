// Compiles the test contracts with the pinned solc from npm and writes them next to their source: TestUSDC.json
// (abi + runtime bytecode, set at USDC's address) and Batch.json (abi + creation bytecode, deployed by a test), so
// no test loads and runs solc (seconds) but token-artifact.test.ts, which checks they match their source.
// `node packages/server/test/chain/build-token.mjs` rebuilds them.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const here = new URL('.', import.meta.url);

/** Compiles `name`.sol (contract `name`, in this folder) with the pinned solc: its abi and creation and runtime code. */
export function compileContract(name) {
  const solc = require('solc');
  const file = `${name}.sol`;
  const source = readFileSync(new URL(file, here), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: source } },
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { [name]: ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = out.contracts[file][name];
  return {
    compiler: `solc ${solc.version()}`,
    abi: c.abi,
    bytecode: `0x${c.evm.bytecode.object}`,
    runtimeBytecode: `0x${c.evm.deployedBytecode.object}`,
  };
}

export function compileToken() {
  const { compiler, abi, runtimeBytecode } = compileContract('TestUSDC');
  return { compiler, abi, runtimeBytecode };
}

export function compileBatch() {
  const { compiler, abi, bytecode } = compileContract('Batch');
  return { compiler, abi, bytecode };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('TestUSDC.json', here), `${JSON.stringify(compileToken(), null, 1)}\n`);
  writeFileSync(new URL('Batch.json', here), `${JSON.stringify(compileBatch(), null, 1)}\n`);
}
