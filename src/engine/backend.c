/*
 * backend.c - the embedded engine behind the table API: which engine
 * function serves each operation of sbx_backend_ops (src/model/backend.h),
 * every optional capability table included (regions, snapshots, bulk
 * load, atomic multi-row check-and-mutate). Nothing in the engine calls
 * through these tables.
 */
#include "engine/engine.h"

#include "model/backend.h"

static const sbx_backend_regions engine_regions_ops = {
    engine_regions,
    engine_split,
    engine_merge,
    engine_set_split_policy,
    engine_get_split_policy,
    engine_load,
    engine_region_servers,
};

static const sbx_backend_snapshots engine_snapshot_ops = {
    engine_snapshot_create,  engine_snapshot_list,   engine_snapshot_clone,
    engine_snapshot_restore, engine_snapshot_delete,
};

static const sbx_backend_bulk engine_bulk_ops = {
    engine_bulk_open,	engine_bulk_put,   engine_bulk_count,
    engine_bulk_finish, engine_bulk_abort, engine_bulk_load,
};

static const sbx_backend_multirow engine_multirow_ops = {
    engine_check_and_mutate_rows,
};

const sbx_backend_ops engine_backend_ops = {
    .name = "embedded",
    .close = engine_close,
    .namespace_create = engine_ns_create,
    .namespace_drop = engine_ns_drop,
    .namespace_list = engine_ns_list,
    .table_create = engine_table_create,
    .table_exists = engine_table_exists,
    .table_describe = engine_table_describe,
    .table_list = engine_table_list,
    .table_alter_family = engine_alter_family,
    .table_delete_family = engine_delete_family,
    .table_set_enabled = engine_set_enabled,
    .table_is_enabled = engine_is_enabled,
    .table_truncate = engine_truncate,
    .table_drop = engine_drop,
    .table_flush = engine_flush,
    .table_major_compact = engine_major_compact,
    .table_open = engine_table_open,
    .table_close = engine_table_close,
    .mutate = engine_mutate,
    .batch = engine_batch,
    .check_and_mutate = engine_check_and_mutate,
    .get = engine_get,
    .scanner_open = engine_scanner_open,
    .scanner = {engine_scanner_next, engine_scanner_close},
    .regions = &engine_regions_ops,
    .snapshots = &engine_snapshot_ops,
    .bulk = &engine_bulk_ops,
    .multirow = &engine_multirow_ops,
};
