import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readBundle, untar } from '../../../builtin-plugins/plugins-admin/bundle.js';
import { pack } from '../../../scripts/plugin-sign.js';

const manifest = '{"name":"demo","version":"1.0.0","entry":"main.js"}';

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
  const plugin = join(dir, 'demo');
  mkdirSync(plugin);
  writeFileSync(join(plugin, 'plugin.json'), manifest);
  writeFileSync(join(plugin, 'main.js'), 'export default {};');
  writeFileSync(join(plugin, 'plugin.sig'), '{"v":1}');
  return plugin;
}

describe('what node-cli plugin install reads', () => {
  it('a folder: the manifest, the entry it names, the signature', () => {
    expect(readBundle(folder())).toEqual({ manifest, entry: 'export default {};', signature: '{"v":1}', changelog: null });
  });

  it('an archive made by plugin:sign pack, and one made by tar czf with a top folder', () => {
    const plugin = folder();
    const packed = join(plugin, '..', 'packed.tgz');
    writeFileSync(packed, pack([{ name: 'plugin.json', data: Buffer.from(manifest) }, { name: 'main.js', data: Buffer.from('export default {};') }]));
    expect(readBundle(packed)).toEqual({ manifest, entry: 'export default {};', signature: null, changelog: null });
    const tarred = join(plugin, '..', 'tarred.tar.gz');
    execFileSync('tar', ['czf', tarred, '-C', join(plugin, '..'), 'demo']);
    expect(readBundle(tarred)).toEqual({ manifest, entry: 'export default {};', signature: '{"v":1}', changelog: null });
  });

  it('refuses links and paths that leave the archive', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    writeFileSync(join(dir, 'plugin.json'), manifest);
    execFileSync('ln', ['-s', '/etc/passwd', join(dir, 'main.js')]);
    const archive = join(dir, '..', `${Date.now()}-links.tar`);
    execFileSync('tar', ['cf', archive, '-C', dir, '.']);
    expect(() => readBundle(archive)).toThrow(/not a regular file/);
    const evil = Buffer.from(pack([{ name: '../escape.js', data: Buffer.from('x') }]));
    expect(() => untar(gunzipSync(evil))).toThrow(/unsafe path/);
  });

  it('says what is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    expect(() => readBundle(dir)).toThrow(/no plugin\.json/);
    writeFileSync(join(dir, 'plugin.json'), manifest);
    expect(() => readBundle(dir)).toThrow(/no main\.js \(the manifest's entry\): build the plugin first/);
  });
});
