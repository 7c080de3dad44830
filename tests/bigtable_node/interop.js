// interop.js - Google's Node.js client (@google-cloud/bigtable) on the same
// emulator as Saltbox's Bigtable backend, for test_bigtable's cross-check.
//   node interop.js read TABLE          print every cell, one per line:
//                                       row/family:qualifier@micros=value
//   node interop.js write TABLE ROW FAMILY QUALIFIER MICROS VALUE
// Reads BIGTABLE_EMULATOR_HOST as every Google client does; project p,
// instance i (tests/run_bigtable.sh).
'use strict';
const {Bigtable} = require('@google-cloud/bigtable');

async function main() {
  const [verb, tableId, ...rest] = process.argv.slice(2);
  const table = new Bigtable({projectId: 'p'}).instance('i').table(tableId);
  if (verb === 'read') {
    const [rows] = await table.getRows({decode: false});
    const lines = [];
    for (const row of rows) {
      const key = Buffer.from(row.id).toString();
      for (const fam of Object.keys(row.data).sort())
        for (const q of Object.keys(row.data[fam]).sort())
          for (const cell of row.data[fam][q])
            lines.push(`${key}/${fam}:${q}@${cell.timestamp}=` +
                       Buffer.from(cell.value).toString());
    }
    console.log(lines.join('\n'));
  } else if (verb === 'write') {
    const [row, family, qualifier, micros, value] = rest;
    await table.row(row).save(
        {[family]: {[qualifier]: {value, timestamp: Number(micros)}}});
  } else {
    throw new Error(`unknown verb '${verb}'`);
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(`interop.js: ${e.message}`);
  process.exit(1);
});
