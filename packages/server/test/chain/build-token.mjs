// Compiles TestUSDC.sol with the pinned solc from npm and writes TestUSDC.json (abi + runtime bytecode).
// `node packages/server/test/chain/build-token.mjs` rebuilds it; chain.test.ts checks the two agree.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const here = new URL('.', import.meta.url);

export function compileToken() {
  const solc = require('solc');
  const source = readFileSync(new URL('TestUSDC.sol', here), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'TestUSDC.sol': { content: source } },
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { TestUSDC: ['abi', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = out.contracts['TestUSDC.sol'].TestUSDC;
  return { compiler: `solc ${solc.version()}`, abi: c.abi, runtimeBytecode: `0x${c.evm.deployedBytecode.object}` };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('TestUSDC.json', here), `${JSON.stringify(compileToken(), null, 1)}\n`);
}
