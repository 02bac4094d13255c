// Temporary folders of one test file, removed when its process exits (node --test starts one
// process per file), so that a run leaves nothing behind in the system's temporary folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made = [];
process.on('exit', () => {
  for (const dir of made) {
    // A server still writing there as the process ends may leave the folder behind: never a
    // reason to fail the run.
    try { fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 }); } catch { /* left behind */ }
  }
});

/** A new folder under the system's temporary folder, named `prefix` and random letters. */
export function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
