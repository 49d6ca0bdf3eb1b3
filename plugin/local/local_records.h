/*
 * One sandbox's record as readers see it: read through the cache, whole
 * (not a create in progress), alive or not, and turned into what a host
 * gets (an sbx_sandbox or a record naming the state directory).
 */
#ifndef SBX_LOCAL_RECORDS_H
#define SBX_LOCAL_RECORDS_H

#include "plugin/local/local_instance.h"

/* 1 when the sandbox of `meta` lives: its command runs, or (without one)
 * its directory exists. */
int local_record_alive(const local_metadata *meta, const local_paths *paths);

/* Read the metadata of a validated id and check that it is that sandbox's. */
sbx_status local_load_metadata(sbx_backend_instance *inst, const local_paths *paths,
                               const char *id, local_metadata *meta, sbx_error *err);

/* Read a record that is whole: a record a create is still writing (or that
 * a killed create left) is no sandbox yet, for readers NOT_FOUND. */
sbx_status local_load_complete(sbx_backend_instance *inst, const local_paths *paths,
                               const char *id, local_metadata *meta, sbx_error *err);

/* What a record and its files say of a sandbox (borrowed from both);
 * `alive` is local_record_alive's answer. */
void local_facts_of(const local_metadata *meta, const local_paths *paths, int alive,
                    common_record_facts *f);

/* The sandbox `meta` describes, into *out (its strings the caller's, as
 * common_sandbox_records_free releases them). */
sbx_status local_fill_record(sbx_sandbox *out, const local_metadata *meta,
                             const local_paths *paths, sbx_error *err);

/* The sandbox `meta` describes, answered as `to` asks (an array of one or
 * a record). */
sbx_status local_single_record(const local_metadata *meta, const local_paths *paths,
                               const common_answer *to, sbx_error *err);

#endif
