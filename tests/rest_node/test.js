// test.js - node-hbase (npm `hbase` 0.6.1), unchanged, against `saltbox serve`:
// tables, puts, gets with versions and time ranges, globs, deletes, and
// scanners with batches, filters and time ranges. Mirrors what node-hbase's
// own test suite checks. Expected values are written out.
'use strict';
const assert = require('assert');
const hbase = require('hbase');

const client = hbase({ host: '127.0.0.1', port: process.env.HBASE_PORT });
const CF = 'node_column_family';

// Callback API -> promise. fn(cb) is called with this = obj.
const call = (obj, method, ...args) =>
	new Promise((resolve, reject) =>
		obj[method](...args, (err, data) => (err ? reject(err) : resolve(data))));

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('version: exactly the keys node-hbase checks', async () => {
	const v = await call(client, 'version');
	assert.deepStrictEqual(Object.keys(v).sort(), ['JVM', 'Jersey', 'OS', 'REST', 'Server']);
	assert.strictEqual(v.REST, '0.0.3');
});

test('cluster version and status', async () => {
	const v = await call(client, 'version_cluster');
	assert.match(v, /^(Unknown)|(\d[\d.]+)/);
	const s = await call(client, 'status_cluster');
	assert.deepStrictEqual(Object.keys(s).sort(),
		['DeadNodes', 'LiveNodes', 'averageLoad', 'hotspot', 'regions',
		 'requests']);
});

test('table create, exists, schema, regions, list', async () => {
	const t = client.table('node_table');
	assert.strictEqual(await call(t, 'exists'), false);
	assert.strictEqual(await call(t, 'create', { ColumnSchema: [{ name: CF, VERSIONS: 5 }] }), true);
	assert.strictEqual(await call(t, 'exists'), true);
	assert.strictEqual(await call(client.table('node_table_missing'), 'exists'), false);
	const schema = await call(t, 'schema');
	assert.strictEqual(schema.name, 'node_table');
	assert.strictEqual(schema.ColumnSchema[0].name, CF);
	assert.strictEqual(schema.ColumnSchema[0].VERSIONS, '5');
	const regions = await call(t, 'regions');
	assert.strictEqual(regions.Region[0].startKey, '');
	assert.ok(regions.Region[0].name.startsWith('node_table,'));
	const tables = await call(client, 'tables');
	assert.deepStrictEqual(tables.map((x) => x.name), ['node_table']);
});

test('put and get one cell', async () => {
	const row = client.table('node_table').row('test_row_put');
	assert.strictEqual(await call(row, 'put', `${CF}:c1`, 'my value'), true);
	const cells = await call(row, 'get', `${CF}:c1`);
	assert.strictEqual(cells.length, 1);
	assert.strictEqual(cells[0].column, `${CF}:c1`);
	assert.strictEqual(cells[0].$, 'my value');
	assert.strictEqual(await call(row, 'exists', `${CF}:c1`), true);
	assert.strictEqual(await call(row, 'exists', `${CF}:nope`), false);
	assert.strictEqual(await call(client.table('node_table').row('nope'), 'exists'), false);
});

test('versions newest first, v=N, and end-exclusive time ranges', async () => {
	const row = client.table('node_table').row('test_row_versions');
	const col = `${CF}:v`;
	await call(row, 'put', [col, col, col, col], ['v1', 'v2', 'v3', 'v4'],
		[1181558248913, 1181558248914, 1181558248915, 1181558248916]);
	let cells = await call(row, 'get', col, { v: 3 });
	assert.deepStrictEqual(cells.map((c) => c.$), ['v4', 'v3', 'v2']);
	assert.deepStrictEqual(cells.map((c) => c.timestamp), [1181558248916, 1181558248915, 1181558248914]);
	cells = await call(row, 'get', col, { start: 1181558248913, end: 1181558248915, v: 10 });
	assert.deepStrictEqual(cells.map((c) => c.$), ['v2', 'v1']);
	cells = await call(row, 'get', col);
	assert.deepStrictEqual(cells.map((c) => c.$), ['v4']);
});

test('one request writing a column twice: the later value wins', async () => {
	const row = client.table('node_table').row('test_row_twice');
	await call(row, 'put', [
		{ column: `${CF}:c`, timestamp: 1300000000000, $: 'first' },
		{ column: `${CF}:c`, timestamp: 1300000000000, $: 'second' },
	]);
	const cells = await call(row, 'get', `${CF}:c`);
	assert.strictEqual(cells[0].$, 'second');
});

test('columns come back sorted; multiple rows in one put', async () => {
	const t = client.table('node_table');
	await call(t.row(null), 'put', [
		{ key: 'test_row_multi_1', column: `${CF}:c4`, $: 'a' },
		{ key: 'test_row_multi_1', column: `${CF}:c2`, $: 'b' },
		{ key: 'test_row_multi_2', column: `${CF}:c1`, $: 'c' },
	]);
	const cells = await call(t.row('test_row_multi_1'), 'get', [`${CF}:c4`, `${CF}:c2`]);
	assert.deepStrictEqual(cells.map((c) => c.column), [`${CF}:c2`, `${CF}:c4`]);
	const other = await call(t.row('test_row_multi_2'), 'get');
	assert.strictEqual(other[0].$, 'c');
});

test('suffix glob returns exactly the matching rows', async () => {
	const t = client.table('node_table');
	await call(t.row('test_row_get_globbing_1'), 'put', `${CF}:c`, 'g1');
	await call(t.row('test_row_get_globbing_2'), 'put', `${CF}:c`, 'g2');
	await call(t.row('test_row_get_globbinh'), 'put', `${CF}:c`, 'other');
	const cells = await call(t.row('test_row_get_globbing_*'), 'get');
	assert.deepStrictEqual(cells.map((c) => `${c.key}=${c.$}`),
		['test_row_get_globbing_1=g1', 'test_row_get_globbing_2=g2']);
});

test('delete a column, then the row; delete and put again at once', async () => {
	const row = client.table('node_table').row('test_row_delete');
	await call(row, 'put', [`${CF}:a`, `${CF}:b`], ['1', '2']);
	assert.strictEqual(await call(row, 'delete', `${CF}:a`), true);
	let cells = await call(row, 'get');
	assert.deepStrictEqual(cells.map((c) => c.column), [`${CF}:b`]);
	assert.strictEqual(await call(row, 'delete'), true);
	assert.strictEqual(await call(row, 'exists'), false);
	await call(row, 'put', `${CF}:a`, 'back');
	cells = await call(row, 'get');
	assert.deepStrictEqual(cells.map((c) => c.$), ['back']);
});

test('scanner batch 10 over a 1000-cell row', async () => {
	const t = client.table('node_table');
	const cols = [], vals = [];
	for (let i = 0; i < 1000; i++) {
		cols.push(`${CF}:${String(i).padStart(4, '0')}`);
		vals.push(`v${i}`);
	}
	await call(t.row('test_scanner_1000'), 'put', cols, vals);
	const cells = await call(t, 'scan', {
		startRow: 'test_scanner_1000', endRow: 'test_scanner_1001', batch: 10,
	});
	assert.strictEqual(cells.length, 1000);
	assert.strictEqual(cells[0].column, `${CF}:0000`);
	assert.strictEqual(cells[999].$, 'v999');
});

async function filterTable() {
	const t = client.table('node_table_filter');
	if (!(await call(t, 'exists')))
		await call(t, 'create', { ColumnSchema: [{ name: CF, VERSIONS: 5 }] });
	await call(t.row(null), 'put', [
		{ key: 'test_filter|row_1', column: `${CF}:aa`, $: 'aa' },
		{ key: 'test_filter|row_1', column: `${CF}:bb`, $: 'bb' },
		{ key: 'test_filter|row_2', column: `${CF}:aa`, $: 'aa' },
		{ key: 'test_filter|row_2', column: `${CF}:bb`, $: 'bb' },
		{ key: 'test_filter|row_3', column: `${CF}:aa`, $: 'aa' },
		{ key: 'test_filter|row_3', column: `${CF}:bb`, $: 'bb' },
	]);
	return t;
}

test('scanner filters: FilterList + regex, FirstKeyOnly, PageFilter, RowFilter, ValueFilter', async () => {
	const t = await filterTable();
	const keys = (cells) => cells.map((c) => `${c.key}/${c.column.split(':')[1]}`);
	let cells = await call(t, 'scan', {
		filter: {
			op: 'MUST_PASS_ALL', type: 'FilterList', filters: [
				{ op: 'EQUAL', type: 'RowFilter', comparator: { value: 'test_filter\\|row_.*', type: 'RegexStringComparator' } },
				{ op: 'EQUAL', type: 'RowFilter', comparator: { value: '.+2$', type: 'RegexStringComparator' } },
			],
		},
	});
	assert.deepStrictEqual(keys(cells), ['test_filter|row_2/aa', 'test_filter|row_2/bb']);
	cells = await call(t, 'scan', { filter: { type: 'FirstKeyOnlyFilter' } });
	assert.deepStrictEqual(keys(cells), ['test_filter|row_1/aa', 'test_filter|row_2/aa', 'test_filter|row_3/aa']);
	cells = await call(t, 'scan', { filter: { type: 'PageFilter', value: '2' } });
	assert.strictEqual(cells.length, 4);
	cells = await call(t, 'scan', { filter: { type: 'PageFilter', value: 2 } });
	assert.strictEqual(cells.length, 4);
	cells = await call(t, 'scan', {
		filter: { op: 'EQUAL', type: 'RowFilter', comparator: { value: 'test_filter|row_3', type: 'BinaryComparator' } },
	});
	assert.deepStrictEqual(keys(cells), ['test_filter|row_3/aa', 'test_filter|row_3/bb']);
	cells = await call(t, 'scan', {
		filter: { op: 'EQUAL', type: 'ValueFilter', comparator: { value: 'bb', type: 'BinaryComparator' } },
	});
	assert.deepStrictEqual(keys(cells), ['test_filter|row_1/bb', 'test_filter|row_2/bb', 'test_filter|row_3/bb']);
});

test('scanner startTime/endTime (end exclusive), columns and maxVersions', async () => {
	const t = client.table('node_table');
	const col = `${CF}:ts`;
	await call(t.row('test_scan_time'), 'put', [col, col, col, col], ['t1', 't2', 't3', 't4'],
		[1181558248912, 1181558248913, 1181558248914, 1181558248915]);
	let cells = await call(t, 'scan', {
		startRow: 'test_scan_time', endRow: 'test_scan_timf',
		startTime: 1181558248913, endTime: 1181558248915, maxVersions: 5,
	});
	assert.deepStrictEqual(cells.map((c) => c.$), ['t3', 't2']);
	cells = await call(t, 'scan', {
		startRow: 'test_scan_time', endRow: 'test_scan_timf', column: [col], maxVersions: 1,
	});
	assert.deepStrictEqual(cells.map((c) => c.$), ['t4']);
});

test('table delete', async () => {
	for (const name of ['node_table', 'node_table_filter']) {
		const t = client.table(name);
		assert.strictEqual(await call(t, 'delete'), true);
		assert.strictEqual(await call(t, 'exists'), false);
	}
	await assert.rejects(call(client.table('node_table'), 'delete'), (err) => err.code === 404);
});

(async () => {
	let failed = 0;
	for (const { name, fn } of tests) {
		try {
			await fn();
			console.log(`ok   ${name}`);
		} catch (err) {
			failed++;
			console.log(`FAIL ${name}\n     ${err && err.stack ? err.stack.split('\n').slice(0, 4).join('\n     ') : err}`);
		}
	}
	console.log(failed ? `${failed} of ${tests.length} failed` : `all ${tests.length} node-hbase tests passed`);
	process.exit(failed ? 1 : 0);
})();
