// The start-up order file's tooling: reading what ran from a callgrind profile, and reading
// the file back. Run by `make test` (node --test).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { functionsRunIn, listedFunctions } from './startup-order.mjs';

// A callgrind profile in its compressed form: a name is spelt out the first time its id
// appears (`fn=(2) name`), and referred to by id alone after; calls name their callee (`cfn`).
const PROFILE = `version: 1
creator: callgrind-3.19.0
ob=(1) /usr/lib/libgtk-3.so.0
fn=(1) gtk_init
0 10
cob=(2) /opt/lango/lango-desktop
cfn=(2) _ZN5lango4main17h0123456789abcdefE
calls=1 0
0 5
ob=(2)
fn=(2)
0 3
cfn=(3) sqlite3_open_v2
calls=1 0
0 2
fn=(3)
0 7
ob=(1)
fn=(4) gtk_main
0 1
ob=(2)
fn=(2)
0 1
fn=(5) _ZN5lango4idle17hfedcba9876543210E
0 1
`;

test('the functions a start ran are those of the app binary, each once, in the order first seen', () => {
  assert.deepEqual(functionsRunIn(PROFILE, 'lango-desktop'), [
    '_ZN5lango4main17h0123456789abcdefE',
    'sqlite3_open_v2',
    '_ZN5lango4idle17hfedcba9876543210E',
  ]);
});

test('a function only called from the binary, never run inside it, is not listed', () => {
  // gtk_init calls into the binary (cfn), but only functions run while in it (fn) count.
  assert.ok(!functionsRunIn(PROFILE, 'lango-desktop').includes('gtk_init'));
  assert.deepEqual(functionsRunIn(PROFILE, 'libgtk-3.so.0'), ['gtk_init', 'gtk_main']);
});

test('the order file read back skips its comments and blank lines', () => {
  const text = '# made by scripts/startup-order.sh\n\n_ZN5lango4main17h0123456789abcdefE\n  sqlite3_open_v2  \n';
  assert.deepEqual(listedFunctions(text), ['_ZN5lango4main17h0123456789abcdefE', 'sqlite3_open_v2']);
});
