// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm.bpf.c - CO-RE probes counting compaction, migration, THP
 * migration, node reclaim and balloon activity into pinned maps.
 *
 * Attach style, chosen per event:
 *  - tp_btf/ where the tracepoint's arguments carry more than its record
 *    (mm_compaction_begin/end: the struct compact_control);
 *  - tracepoint/ (the classic record, read through CO-RE field
 *    relocations) everywhere else, so a field added or moved by a later
 *    kernel (mm_migrate_pages gained large_folio_split in 6.11) does not
 *    shift positional arguments under us;
 *  - fentry/fexit where no tracepoint exists: the direct-compaction
 *    outcome (compact_stall/success/fail are counted in
 *    __alloc_pages_direct_compact(), not at a tracepoint; where that
 *    function is inlined, around try_to_compact_pages() instead), per-folio
 *    migration latency, and the balloon (6.1 has no balloon tracepoints).
 *
 * Any program whose tracepoint or function is missing on the running
 * kernel is switched off by the loader before load (stat_load.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "guestmm.h"

char LICENSE[] SEC("license") = "GPL";

/* include/linux/sched.h; a macro, so not in BTF */
#define GUESTMM_PF_KTHREAD	0x00200000
/* pageblock_order on x86-64 (HUGETLB_PAGE_ORDER); a macro, not in BTF */
#define GUESTMM_PAGEBLOCK_ORDER	9

#define PINNED_ARRAY(_name, _value, _n)				\
	struct {						\
		__uint(type, BPF_MAP_TYPE_ARRAY);		\
		__uint(max_entries, _n);			\
		__type(key, __u32);				\
		__type(value, _value);				\
		__uint(pinning, LIBBPF_PIN_BY_NAME);		\
	} _name SEC(".maps")

PINNED_ARRAY(compact, struct guestmm_compact, 1);
PINNED_ARRAY(compact_direct, struct guestmm_compact_direct, GUESTMM_ORDERS);
PINNED_ARRAY(extfrag, struct guestmm_extfrag, 1);
PINNED_ARRAY(migrate, struct guestmm_migrate, GUESTMM_MIGRATE_REASONS);
PINNED_ARRAY(thp_migration, struct guestmm_thp_migration, 1);
PINNED_ARRAY(node_reclaim, struct guestmm_node_reclaim, 1);
PINNED_ARRAY(balloon, struct guestmm_balloon, 1);

/* Histograms are per-CPU: plain adds, no atomics (lat_migrate is updated
 * for every folio migrated). */
#define PINNED_PERCPU_ARRAY(_name, _value, _n)			\
	struct {						\
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);	\
		__uint(max_entries, _n);			\
		__type(key, __u32);				\
		__type(value, _value);				\
		__uint(pinning, LIBBPF_PIN_BY_NAME);		\
	} _name SEC(".maps")

PINNED_PERCPU_ARRAY(lat_compact, struct guestmm_hist, GUESTMM_KINDS);
PINNED_PERCPU_ARRAY(lat_direct, struct guestmm_hist, GUESTMM_ORDERS);
PINNED_PERCPU_ARRAY(lat_migrate, struct guestmm_hist, GUESTMM_MIG_KINDS);
PINNED_PERCPU_ARRAY(lat_reclaim, struct guestmm_hist, 1);

/* Filled by the loader with one entry per attached module tracepoint. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct guestmm_modev);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} module_events SEC(".maps");

/*
 * Per-task state between an entry and its exit: start timestamps and the
 * "inside balloon_page_dequeue()" marker.  Task local storage: no hashing
 * and no delete on the hot path (per-folio migration timing runs for every
 * page moved).  Private, not pinned.
 */
enum guestmm_inflight_what {
	INFLIGHT_COMPACT_RUN,
	INFLIGHT_DIRECT,
	INFLIGHT_MIGRATE_CALL,
	INFLIGHT_MOVE_FOLIO,
	INFLIGHT_NODE_RECLAIM,
	INFLIGHT_BALLOON_DEQUEUE,
	INFLIGHT_N,
};

struct guestmm_inflight {
	__u64 ts[INFLIGHT_N];	/* 0: not inside */
	__u32 aux[INFLIGHT_N];	/* kind, order, ...: depends on what */
	__u32 aux2[INFLIGHT_N];
	__u64 call[INFLIGHT_N];	/* an argument that tells the call apart */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct guestmm_inflight);
} inflight SEC(".maps");

#define ADD(field, v)	__sync_fetch_and_add(&(field), (v))
#define INC(field)	ADD(field, 1)

static __always_inline void *slot0(void *map)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(map, &k);
}

static __always_inline void *slot(void *map, __u32 k)
{
	return bpf_map_lookup_elem(map, &k);
}

/*
 * clamp_idx(v, n): v as an index below n; out-of-range values, negative
 * ones included, go to the last slot.  The verifier must see the bound on
 * the register that indexes, whatever shape the compiler gives the test:
 * for a power-of-two n, clang 19 tests a masked copy ((v & ~(n - 1)) == 0),
 * which bounds nothing the verifier tracks ("unbounded memory access").
 * So the clamped value is hidden from the optimiser (barrier_var(), else
 * LLVM proves the mask redundant and drops it) and masked with n - 1: an
 * AND the verifier always bounds, and a no-op after the clamp.  A bound
 * that is not a power of two has no mask form, so there the compare,
 * made after barrier_var() on the value itself, is what the verifier sees.
 * n must be a constant; use AT() to index an array.
 */
#define IS_POW2(n)	((n) != 0 && ((n) & ((n) - 1)) == 0)

static __always_inline __u32 __clamp_idx(__u64 i, __u32 n)
{
	if (IS_POW2(n)) {
		if (i >= n)
			i = n - 1;
		barrier_var(i);
		return i & (n - 1);
	}
	barrier_var(i);
	return i < n ? i : n - 1;
}

#define clamp_idx(v, n) ({						\
	_Static_assert((n) > 0, "clamp_idx: n must be a positive constant"); \
	__clamp_idx((__s64)(v), (n));					\
})

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* arr[v] with v clamped to arr's own size */
#define AT(arr, v)	((arr)[clamp_idx((v), ARRAY_SIZE(arr))])

/* floor(log2(v)) for v > 0, 0 for v == 0, by halving the search range */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8)  { v >>= 8;  r += 8; }
	if (v >> 4)  { v >>= 4;  r += 4; }
	if (v >> 2)  { v >>= 2;  r += 2; }
	if (v >> 1)  { r += 1; }
	return r;
}

static __always_inline void hist_add(void *map, __u32 key, __u64 ns)
{
	struct guestmm_hist *h = bpf_map_lookup_elem(map, &key);

	if (!h)
		return;
	/* per-CPU value: a preempted update on this CPU is the only race */
	AT(h->slots, log2_u64(ns))++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

static __always_inline struct guestmm_inflight *inflight_get(bool create)
{
	return bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline void inflight_start(__u32 what, __u32 aux, __u32 aux2)
{
	struct guestmm_inflight *v = inflight_get(true);

	if (!v || what >= INFLIGHT_N)
		return;
	v->ts[what] = bpf_ktime_get_ns();
	v->aux[what] = aux;
	v->aux2[what] = aux2;
}

/* Returns elapsed ns and the stored aux values, or 0 when no start was
 * seen (the probe was attached mid-way). */
static __always_inline __u64 inflight_end(__u32 what, __u32 *aux, __u32 *aux2)
{
	struct guestmm_inflight *v = inflight_get(false);
	__u64 ns;

	if (!v || what >= INFLIGHT_N || !v->ts[what])
		return 0;
	ns = bpf_ktime_get_ns() - v->ts[what];
	v->ts[what] = 0;
	if (aux)
		*aux = v->aux[what];
	if (aux2)
		*aux2 = v->aux2[what];
	return ns ? ns : 1;
}

/* ---------------------------------------------------------------- */
/* compaction passes: compact_zone()                                 */

static __always_inline __u32 compact_kind(struct compact_control *cc)
{
	struct task_struct *task;

	if (BPF_CORE_READ(cc, direct_compaction))
		return GUESTMM_KIND_DIRECT;
	if (bpf_core_field_exists(cc->proactive_compaction) &&
	    BPF_CORE_READ(cc, proactive_compaction))
		return GUESTMM_KIND_PROACTIVE;
	task = bpf_get_current_task_btf();
	if (task->flags & GUESTMM_PF_KTHREAD)
		return GUESTMM_KIND_KCOMPACTD;
	return GUESTMM_KIND_MANUAL;
}

SEC("tp_btf/mm_compaction_begin")
int BPF_PROG(guestmm_compaction_begin, struct compact_control *cc,
	     unsigned long zone_start, unsigned long zone_end, bool sync)
{
	struct guestmm_compact *c = slot0(&compact);
	__u32 kind = compact_kind(cc);

	if (!c)
		return 0;
	INC(c->begin);
	if (sync)
		INC(c->sync);
	else
		INC(c->async);
	INC(AT(c->kind, kind));
	inflight_start(INFLIGHT_COMPACT_RUN, kind, 0);
	return 0;
}

SEC("tp_btf/mm_compaction_end")
int BPF_PROG(guestmm_compaction_end, struct compact_control *cc,
	     unsigned long zone_start, unsigned long zone_end, bool sync,
	     int status)
{
	struct guestmm_compact *c = slot0(&compact);
	__u64 mscan = BPF_CORE_READ(cc, total_migrate_scanned);
	__u64 fscan = BPF_CORE_READ(cc, total_free_scanned);
	__u32 kind = compact_kind(cc);
	__u64 ns;

	if (!c)
		return 0;
	INC(c->end);
	INC(AT(c->status, status));
	ADD(c->migrate_scanned, mscan);
	ADD(c->free_scanned, fscan);
	ADD(AT(c->kind_migrate_scanned, kind), mscan);
	ADD(AT(c->kind_free_scanned, kind), fscan);
	ns = inflight_end(INFLIGHT_COMPACT_RUN, NULL, NULL);
	if (ns) {
		ADD(c->run_ns, ns);
		hist_add(&lat_compact, kind, ns);
	}
	return 0;
}

SEC("tracepoint/compaction/mm_compaction_migratepages")
int guestmm_compaction_migratepages(struct trace_event_raw_mm_compaction_migratepages *ctx)
{
	struct guestmm_compact *c = slot0(&compact);

	if (!c)
		return 0;
	INC(c->migratepages);
	ADD(c->nr_migrated, ctx->nr_migrated);
	ADD(c->nr_failed, ctx->nr_failed);
	return 0;
}

SEC("tracepoint/compaction/mm_compaction_isolate_migratepages")
int guestmm_isolate_migratepages(struct trace_event_raw_mm_compaction_isolate_template *ctx)
{
	struct guestmm_compact *c = slot0(&compact);

	if (!c)
		return 0;
	INC(c->isolate_migrate);
	ADD(c->isolate_migrate_scanned, ctx->nr_scanned);
	ADD(c->isolate_migrate_taken, ctx->nr_taken);
	return 0;
}

SEC("tracepoint/compaction/mm_compaction_isolate_freepages")
int guestmm_isolate_freepages(struct trace_event_raw_mm_compaction_isolate_template *ctx)
{
	struct guestmm_compact *c = slot0(&compact);

	if (!c)
		return 0;
	INC(c->isolate_free);
	ADD(c->isolate_free_scanned, ctx->nr_scanned);
	ADD(c->isolate_free_taken, ctx->nr_taken);
	return 0;
}

SEC("tracepoint/compaction/mm_compaction_suitable")
int guestmm_compaction_suitable(struct trace_event_raw_mm_compaction_suitable_template *ctx)
{
	struct guestmm_compact *c = slot0(&compact);

	if (c)
		INC(AT(c->suitable, ctx->ret));
	return 0;
}

SEC("tracepoint/compaction/mm_compaction_finished")
int guestmm_compaction_finished(struct trace_event_raw_mm_compaction_suitable_template *ctx)
{
	struct guestmm_compact *c = slot0(&compact);

	if (c)
		INC(AT(c->finished, ctx->ret));
	return 0;
}

/*
 * Programs that only count their event: one add to a member of a
 * one-entry map.  COUNT_EVENT(prog, tracepoint, map, member) defines the
 * program prog, attached to the tracepoint.
 */
static __always_inline int count_event(void *map, __u32 off)
{
	__u64 *v = slot0(map);

	if (v)
		INC(v[off / sizeof(*v)]);
	return 0;
}

#define COUNT_EVENT(_prog, _tp, _map, _member)				\
	SEC("tracepoint/" _tp)						\
	int _prog(void *ctx)						\
	{								\
		return count_event(&_map,				\
				   offsetof(typeof(*_map.value), _member)); \
	}

COUNT_EVENT(guestmm_compaction_deferred,
	    "compaction/mm_compaction_deferred", compact, deferred)
COUNT_EVENT(guestmm_compaction_defer_compaction,
	    "compaction/mm_compaction_defer_compaction", compact, defer_compaction)
COUNT_EVENT(guestmm_compaction_defer_reset,
	    "compaction/mm_compaction_defer_reset", compact, defer_reset)
COUNT_EVENT(guestmm_kcompactd_wake,
	    "compaction/mm_compaction_kcompactd_wake", compact, kcompactd_wake)
COUNT_EVENT(guestmm_kcompactd_sleep,
	    "compaction/mm_compaction_kcompactd_sleep", compact, kcompactd_sleep)
COUNT_EVENT(guestmm_wakeup_kcompactd,
	    "compaction/mm_compaction_wakeup_kcompactd", compact, wakeup_kcompactd)

/* ---------------------------------------------------------------- */
/* direct compaction: try_to_compact_pages() and the stall around it */

SEC("tracepoint/compaction/mm_compaction_try_to_compact_pages")
int guestmm_try_to_compact_pages(struct trace_event_raw_mm_compaction_try_to_compact_pages *ctx)
{
	struct guestmm_compact_direct *d;

	d = slot(&compact_direct, clamp_idx(ctx->order, GUESTMM_ORDERS));
	if (!d)
		return 0;
	INC(d->try_to_compact);
	INC(AT(d->prio, ctx->prio));
	return 0;
}

SEC("fentry/__alloc_pages_direct_compact")
int BPF_PROG(guestmm_direct_compact_entry, gfp_t gfp_mask, unsigned int order)
{
	if (order)
		inflight_start(INFLIGHT_DIRECT, order, 0);
	return 0;
}

/*
 * try_to_compact_pages() is called only from __alloc_pages_direct_compact();
 * its result decides whether a stall is counted.  (The caller's own
 * enum compact_result * argument cannot be read: 6.1's verifier rejects
 * pointers to anything but structs in tracing context.)  aux2 holds
 * result + 1, so 0 means "not seen".
 */
SEC("fexit/try_to_compact_pages")
int BPF_PROG(guestmm_try_to_compact_exit, gfp_t gfp_mask, unsigned int order,
	     unsigned int alloc_flags, const struct alloc_context *ac,
	     enum compact_priority prio, struct page **capture,
	     enum compact_result result)
{
	struct guestmm_inflight *v = inflight_get(false);

	if (v && v->ts[INFLIGHT_DIRECT])
		v->aux2[INFLIGHT_DIRECT] = (__u32)result + 1;
	return 0;
}

/*
 * A direct-compaction stall of @order ends: its outcome (a page or none)
 * and, where its start was seen, its duration @ns, in @d, the order's row.
 */
static __always_inline void direct_settle(struct guestmm_compact_direct *d,
					  __u32 order, bool got_page, __u64 ns)
{
	if (got_page)
		INC(d->success);
	else
		INC(d->fail);
	if (ns) {
		ADD(d->stall_ns, ns);
		hist_add(&lat_direct, clamp_idx(order, GUESTMM_ORDERS), ns);
	}
}

/*
 * Mirrors the accounting at the end of __alloc_pages_direct_compact():
 * order 0 returns before compacting; COMPACT_SKIPPED returns before
 * COMPACTSTALL; otherwise one stall, then COMPACTSUCCESS if a page came
 * back, else COMPACTFAIL.
 */
SEC("fexit/__alloc_pages_direct_compact")
int BPF_PROG(guestmm_direct_compact_exit, gfp_t gfp_mask, unsigned int order,
	     unsigned int alloc_flags, const struct alloc_context *ac,
	     enum compact_priority prio, enum compact_result *compact_result,
	     struct page *page)
{
	struct guestmm_compact_direct *d;
	__u32 result = 0;
	__u64 ns;

	if (!order)
		return 0;
	ns = inflight_end(INFLIGHT_DIRECT, NULL, &result);
	d = slot(&compact_direct, clamp_idx(order, GUESTMM_ORDERS));
	if (!d || !result)
		return 0;	/* entry not seen: attached mid-call */
	if (result - 1 == bpf_core_enum_value(enum compact_result, COMPACT_SKIPPED)) {
		INC(d->skipped);
		return 0;
	}
	INC(d->stall);
	direct_settle(d, order, page, ns);
	return 0;
}

/*
 * Kernels that inline __alloc_pages_direct_compact() (7.2 on) get the same
 * figures from its callees; the loader attaches these three programs
 * instead of the two above and try_to_compact_exit (and so does `load -x
 * direct_compact` on any kernel, which is how 6.x guests test them).  The
 * inlined caller (7.2, 7.3 mm/page_alloc.c) runs:
 *
 *	result = try_to_compact_pages(.., order, .., prio, &capc);
 *	if (capc.page) result = COMPACT_SUCCESS;
 *	if (result == COMPACT_SKIPPED || result == COMPACT_DEFERRED)
 *		return NULL;			no stall
 *	COMPACTSTALL;
 *	page = capc.page ?: get_page_from_freelist(..);
 *	page ? COMPACTSUCCESS : COMPACTFAIL;
 *
 * 6.x passes a struct page ** for the captured page instead, and stalls
 * on COMPACT_DEFERRED too (only COMPACT_SKIPPED returns early).
 *
 * A stall with no captured page is settled by the task's next
 * get_page_from_freelist() return with the same struct alloc_context (an
 * allocation from an interrupt on this task has its own), which is the one
 * in that code: aux2 marks the task as waiting for it, direct_waiting
 * counts such tasks so that the hot freelist path returns at once when
 * there are none.  The map is keyed by try_to_compact_pages()'s order, the
 * order compacted for (the allocation's, or pageblock_order where 7.x
 * promotes it).
 */
__u64 direct_waiting;

/* capture_control as the caller fills it in (7.2 on); 6.x's has cc */
struct capture_control___caller {
	struct zone *zone;
} __attribute__((preserve_access_index));

SEC("fentry/try_to_compact_pages")
int BPF_PROG(guestmm_direct_tc_entry, gfp_t gfp_mask, unsigned int order,
	     unsigned int alloc_flags, const struct alloc_context *ac)
{
	struct guestmm_inflight *v;

	inflight_start(INFLIGHT_DIRECT, order, 0);
	v = inflight_get(false);
	if (v)
		v->call[INFLIGHT_DIRECT] = (__u64)ac;
	return 0;
}

/*
 * The last argument is read raw with bpf_get_func_arg(), and the page
 * behind it with a probe read: 6.1's verifier does not let a program read
 * a struct page ** argument, and this program must load there too.  The
 * result comes from bpf_get_func_ret(): no positional slot to keep in
 * step with the argument list.
 */
SEC("fexit/try_to_compact_pages")
int BPF_PROG(guestmm_direct_tc_exit)
{
	struct capture_control___caller *probe = NULL;
	struct guestmm_inflight *v = inflight_get(false);
	bool by_caller = bpf_core_field_exists(probe->zone);
	struct guestmm_compact_direct *d;
	struct page *captured = NULL;
	__u64 arg = 0, result = 0;
	__u32 order;

	if (!v || !v->ts[INFLIGHT_DIRECT])
		return 0;	/* entry not seen: attached mid-call */
	order = v->aux[INFLIGHT_DIRECT];
	d = slot(&compact_direct, clamp_idx(order, GUESTMM_ORDERS));
	if (!d) {
		v->ts[INFLIGHT_DIRECT] = 0;
		return 0;
	}
	bpf_get_func_ret(ctx, &result);
	result = (__u32)result;		/* an enum: the upper half is not defined */
	if (!bpf_get_func_arg(ctx, 5, &arg) && arg) {
		if (by_caller)
			captured = BPF_CORE_READ((struct capture_control *)arg, page);
		else
			bpf_probe_read_kernel(&captured, sizeof(captured), (void *)arg);
	}
	if (captured)
		result = bpf_core_enum_value(enum compact_result, COMPACT_SUCCESS);
	if (result == bpf_core_enum_value(enum compact_result, COMPACT_SKIPPED) ||
	    (by_caller &&
	     result == bpf_core_enum_value(enum compact_result, COMPACT_DEFERRED))) {
		v->ts[INFLIGHT_DIRECT] = 0;
		INC(d->skipped);
		return 0;
	}
	INC(d->stall);
	if (captured) {
		direct_settle(d, order, true,
			      inflight_end(INFLIGHT_DIRECT, NULL, NULL));
		return 0;
	}
	v->aux2[INFLIGHT_DIRECT] = 1;
	INC(direct_waiting);
	return 0;
}

SEC("fexit/get_page_from_freelist")
int BPF_PROG(guestmm_direct_tc_freelist, gfp_t gfp_mask, unsigned int alloc_order,
	     int alloc_flags, const struct alloc_context *ac)
{
	struct guestmm_compact_direct *d;
	struct guestmm_inflight *v;
	__u64 page = 0, ns;
	__u32 order = 0;

	if (!direct_waiting)
		return 0;
	v = inflight_get(false);
	if (!v || !v->aux2[INFLIGHT_DIRECT] || v->call[INFLIGHT_DIRECT] != (__u64)ac)
		return 0;
	v->aux2[INFLIGHT_DIRECT] = 0;
	ADD(direct_waiting, -1);
	ns = inflight_end(INFLIGHT_DIRECT, &order, NULL);
	bpf_get_func_ret(ctx, &page);
	d = slot(&compact_direct, clamp_idx(order, GUESTMM_ORDERS));
	if (d)
		direct_settle(d, order, page, ns);
	return 0;
}

/* ---------------------------------------------------------------- */
/* fragmentation: fallback allocations from another migratetype        */

SEC("tracepoint/kmem/mm_page_alloc_extfrag")
int guestmm_page_alloc_extfrag(struct trace_event_raw_mm_page_alloc_extfrag *ctx)
{
	struct guestmm_extfrag *e = slot0(&extfrag);

	if (!e)
		return 0;
	INC(e->events);
	if (ctx->fallback_order < GUESTMM_PAGEBLOCK_ORDER)
		INC(e->fragmenting);
	if (ctx->change_ownership)
		INC(e->change_ownership);
	INC(AT(e->alloc_migratetype, ctx->alloc_migratetype));
	INC(AT(e->fallback_migratetype, ctx->fallback_migratetype));
	return 0;
}

/* ---------------------------------------------------------------- */
/* migration: migrate_pages() calls by reason, folios moved            */

/*
 * The records' reason is an int up to 7.2 and an enum migrate_reason from
 * 7.3 on.  CO-RE does not match an int field with an enum one, so a plain
 * ctx->reason would fail to relocate on one side or the other, and with it
 * the whole load: each record has a flavour of either type, and the one
 * that exists on this kernel is read.  A kernel with neither lands in the
 * last slot.
 */
struct trace_event_raw_mm_migrate_pages_start___int {
	int reason;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_migrate_pages_start___enum {
	enum migrate_reason reason;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_migrate_pages___int {
	int reason;
} __attribute__((preserve_access_index));

struct trace_event_raw_mm_migrate_pages___enum {
	enum migrate_reason reason;
} __attribute__((preserve_access_index));

#define MIGRATE_REASON(ctx, rec) ({					\
	struct rec##___int *__i = (void *)(ctx);			\
	struct rec##___enum *__e = (void *)(ctx);			\
	__u32 __r = GUESTMM_MIGRATE_REASONS - 1;			\
									\
	if (bpf_core_field_exists(__i->reason))				\
		__r = clamp_idx(__i->reason, GUESTMM_MIGRATE_REASONS);	\
	else if (bpf_core_field_exists(__e->reason))			\
		__r = clamp_idx(__e->reason, GUESTMM_MIGRATE_REASONS);	\
	__r;								\
})

SEC("tracepoint/migrate/mm_migrate_pages_start")
int guestmm_migrate_pages_start(struct trace_event_raw_mm_migrate_pages_start *ctx)
{
	__u32 reason = MIGRATE_REASON(ctx, trace_event_raw_mm_migrate_pages_start);
	struct guestmm_migrate *m = slot(&migrate, reason);

	if (m)
		INC(m->start);
	inflight_start(INFLIGHT_MIGRATE_CALL, reason, 0);
	return 0;
}

/* mm_migrate_pages as of 6.11+, which added large_folio_split */
struct trace_event_raw_mm_migrate_pages___new {
	unsigned long large_folio_split;
} __attribute__((preserve_access_index));

SEC("tracepoint/migrate/mm_migrate_pages")
int guestmm_migrate_pages(struct trace_event_raw_mm_migrate_pages *ctx)
{
	__u32 reason = MIGRATE_REASON(ctx, trace_event_raw_mm_migrate_pages);
	struct guestmm_migrate *m = slot(&migrate, reason);
	__u64 ns;

	if (!m)
		return 0;
	INC(m->calls);
	ADD(m->succeeded, ctx->succeeded);
	ADD(m->failed, ctx->failed);
	ADD(m->thp_succeeded, ctx->thp_succeeded);
	ADD(m->thp_failed, ctx->thp_failed);
	ADD(m->thp_split, ctx->thp_split);
	if (bpf_core_field_exists(((struct trace_event_raw_mm_migrate_pages___new *)ctx)->large_folio_split))
		ADD(m->large_folio_split,
		    ((struct trace_event_raw_mm_migrate_pages___new *)ctx)->large_folio_split);
	INC(AT(m->mode, ctx->mode));
	ns = inflight_end(INFLIGHT_MIGRATE_CALL, NULL, NULL);
	if (ns)
		ADD(m->call_ns, ns);
	return 0;
}

COUNT_EVENT(guestmm_set_migration_pmd,
	    "thp/set_migration_pmd", thp_migration, set_migration_pmd)
COUNT_EVENT(guestmm_remove_migration_pmd,
	    "thp/remove_migration_pmd", thp_migration, remove_migration_pmd)

/*
 * Order of a folio: 0 unless PG_head; then _folio_order (6.1) or the low
 * byte of _flags_1 (6.6+ keep the order there).  The flags word is read
 * raw from offset 0: it has always been the first word of struct page,
 * but 6.18 wrapped it in a struct (memdesc_flags_t), which a typed CO-RE
 * read compiled against an older vmlinux.h would not match.
 */
struct folio___old {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

struct folio___new {
	unsigned long _flags_1;
} __attribute__((preserve_access_index));

static __always_inline __u32 folio_order_of(struct folio *f)
{
	int head = bpf_core_enum_value(enum pageflags, PG_head);
	unsigned long flags = 0;

	bpf_probe_read_kernel(&flags, sizeof(flags), f);
	if (!(flags & (1UL << (head & 63))))
		return 0;
	if (bpf_core_field_exists(((struct folio___old *)f)->_folio_order))
		return BPF_CORE_READ((struct folio___old *)f, _folio_order);
	if (bpf_core_field_exists(((struct folio___new *)f)->_flags_1))
		return BPF_CORE_READ((struct folio___new *)f, _flags_1) & 0xff;
	return 1;	/* large, order unknown */
}

SEC("fentry/move_to_new_folio")
int BPF_PROG(guestmm_move_folio_entry)
{
	inflight_start(INFLIGHT_MOVE_FOLIO, 0, 0);
	return 0;
}

/* Runs for every folio migrated: keep it cheap (no atomics; the order is
 * read from the destination, which is large iff the source was). */
SEC("fexit/move_to_new_folio")
int BPF_PROG(guestmm_move_folio_exit, struct folio *dst, struct folio *src,
	     enum migrate_mode mode, int ret)
{
	struct guestmm_thp_migration *t;
	__u64 ns = inflight_end(INFLIGHT_MOVE_FOLIO, NULL, NULL);

	if (ret) {		/* MIGRATEPAGE_SUCCESS is 0 */
		t = slot0(&thp_migration);
		if (t)
			INC(t->folios_move_failed);
		return 0;
	}
	if (ns)
		hist_add(&lat_migrate, folio_order_of(dst) ? GUESTMM_MIG_THP
							    : GUESTMM_MIG_BASE, ns);
	return 0;
}

/* ---------------------------------------------------------------- */
/* node reclaim (zone_reclaim_mode): the unmapped page cache policy    */

SEC("tracepoint/vmscan/mm_vmscan_node_reclaim_begin")
int guestmm_node_reclaim_begin(struct trace_event_raw_mm_vmscan_node_reclaim_begin *ctx)
{
	struct guestmm_node_reclaim *r = slot0(&node_reclaim);

	if (!r)
		return 0;
	INC(r->begin);
	INC(AT(r->order, ctx->order));
	inflight_start(INFLIGHT_NODE_RECLAIM, ctx->order, 0);
	return 0;
}

SEC("tracepoint/vmscan/mm_vmscan_node_reclaim_end")
int guestmm_node_reclaim_end(struct trace_event_raw_mm_vmscan_direct_reclaim_end_template *ctx)
{
	struct guestmm_node_reclaim *r = slot0(&node_reclaim);
	__u32 order = 0;
	__u64 ns;

	if (!r)
		return 0;
	ns = inflight_end(INFLIGHT_NODE_RECLAIM, &order, NULL);
	INC(r->end);
	ADD(r->nr_reclaimed, ctx->nr_reclaimed);
	if (!ctx->nr_reclaimed)
		INC(r->empty);
	/* __node_reclaim() succeeds when it freed 2^order pages */
	if (ns && ctx->nr_reclaimed < (1ULL << (order & 31)))
		INC(r->failed);
	if (ns) {
		ADD(r->run_ns, ns);
		hist_add(&lat_reclaim, 0, ns);
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* balloon (mm/balloon_compaction.c): any driver using balloon_dev_info */

SEC("fentry/balloon_page_enqueue")
int BPF_PROG(guestmm_balloon_enqueue)
{
	struct guestmm_balloon *b = slot0(&balloon);

	if (b)
		INC(b->inflate);
	return 0;
}

SEC("fexit/balloon_page_list_enqueue")
int BPF_PROG(guestmm_balloon_list_enqueue, struct balloon_dev_info *info,
	     struct list_head *pages, size_t n)
{
	struct guestmm_balloon *b = slot0(&balloon);

	if (b)
		ADD(b->inflate, n);
	return 0;
}

/*
 * balloon_page_dequeue() calls balloon_page_list_dequeue(.., 1), which
 * the compiler may or may not inline.  Count in the outer function and
 * let the list variant count only calls made from elsewhere, so the total
 * equals balloon_deflate either way.
 */
SEC("fentry/balloon_page_dequeue")
int BPF_PROG(guestmm_balloon_dequeue_entry)
{
	inflight_start(INFLIGHT_BALLOON_DEQUEUE, 0, 0);
	return 0;
}

SEC("fexit/balloon_page_dequeue")
int BPF_PROG(guestmm_balloon_dequeue_exit, struct balloon_dev_info *info,
	     struct page *page)
{
	struct guestmm_balloon *b = slot0(&balloon);

	inflight_end(INFLIGHT_BALLOON_DEQUEUE, NULL, NULL);
	if (!b)
		return 0;
	if (page)
		INC(b->deflate);
	else
		INC(b->dequeue_empty);
	return 0;
}

SEC("fexit/balloon_page_list_dequeue")
int BPF_PROG(guestmm_balloon_list_dequeue, struct balloon_dev_info *info,
	     struct list_head *pages, size_t n_req, size_t n)
{
	struct guestmm_inflight *v = inflight_get(false);
	struct guestmm_balloon *b;

	if (v && v->ts[INFLIGHT_BALLOON_DEQUEUE])
		return 0;	/* inside balloon_page_dequeue(), counted there */
	b = slot0(&balloon);
	if (b)
		ADD(b->deflate, n);
	return 0;
}

SEC("fexit/balloon_page_migrate")
int BPF_PROG(guestmm_balloon_migrate, struct page *newpage, struct page *page,
	     enum migrate_mode mode, int ret)
{
	struct guestmm_balloon *b = slot0(&balloon);

	if (!b)
		return 0;
	if (ret == 0)
		INC(b->migrate);
	else
		INC(b->migrate_failed);
	return 0;
}

/* ---------------------------------------------------------------- */
/* guestmm modules' own tracepoints: attached by the loader to every
 * event under tracefs events/guestmm*.  A tracepoint program cannot read
 * the record's common_type, so the loader passes the event id as the
 * link's BPF cookie.                                                   */

SEC("tracepoint")
int guestmm_module_event(void *ctx)
{
	__u32 id = (__u32)bpf_get_attach_cookie(ctx);
	struct guestmm_modev *e = bpf_map_lookup_elem(&module_events, &id);
	__u32 off;
	__u64 v = 0;

	if (!e)
		return 0;
	INC(e->count);
	off = e->sum_off;
	if (off >= 4096)
		return 0;
	if (e->sum_size == 8)
		bpf_probe_read_kernel(&v, 8, ctx + off);
	else if (e->sum_size == 4)
		bpf_probe_read_kernel(&v, 4, ctx + off);	/* little endian */
	if (v)
		ADD(e->sum, v);
	return 0;
}
