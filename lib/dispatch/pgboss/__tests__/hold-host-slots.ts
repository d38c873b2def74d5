// A worker that takes every slot of one host and holds them until it is killed: argv database URL, scope, host.
import { HostSlots } from '../host-slots.js';

const [databaseUrl, scope, host] = process.argv.slice(2);
if (databaseUrl === undefined || scope === undefined || host === undefined) throw new Error('usage: hold-host-slots.ts DATABASE_URL SCOPE HOST');
const slots = new HostSlots(databaseUrl, scope, 2, 2);
const forever = new Promise<void>(() => undefined);
let held = 0;
for (let slot = 0; slot < 2; slot += 1) {
  void slots.withSlot(host, async () => {
    held += 1;
    if (held === 2) process.stdout.write('held\n');
    await forever;
  });
}
