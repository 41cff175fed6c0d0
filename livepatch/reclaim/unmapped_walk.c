// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_klp: the walk of the unmapped page cache control.
 *
 * Tests: tests/cases/klp_unmapped_*.py (6.1, 6.12 with MGLRU).
 *
 * One pass (unmapped.c starts it in kswapd, from balance_pgdat()) walks
 * the file LRU of every memcg on the node, oldest first, and takes only
 * unmapped, clean, not-under-writeback, unlocked page cache.  The kernel
 * frees it: folio_isolate_lru(), then shrink_folio_list() with a private
 * scan_control that may not unmap, write or swap (variants/<V>/vmscan.h).
 * Nothing else moves:
 *
 * - Classic LRU: the inactive file list, then the active one, from the
 *   tail, in place.  Folios we do not take stay where they are (the
 *   kernel's isolate_lru_folios() would rotate mapped ones to the head
 *   when may_unmap is 0).  Between two holds of the lru_lock the walk
 *   resumes at a referenced cursor folio if it is still on that list.
 * - MGLRU: the file lists of the generations min_seq .. max_seq - 1,
 *   never the youngest.  A folio we do not take keeps its generation and
 *   goes to the head of its list, as scan_folios() does with the folios it
 *   does not isolate; one whose generation aging raised lazily goes to its
 *   own list, as sort_folio() does.  Tier 0 only, unless a whole walk
 *   found nothing (then every tier).  No aging, no min_seq update.
 *
 * It counts as kswapd reclaim, as shrink_inactive_list() counts it:
 * pgscan_kswapd/pgsteal_kswapd, pgscan_file/pgsteal_file, and the same
 * events of the memcg.  No slab, no anon list, no swap cache.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/backing-dev-defs.h>
#include <linux/irqflags.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmzone.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/swap.h>
#include <linux/vmstat.h>

#include "ksyms.h"
#include "unmapped_walk.h"
#include "vmscan.h"

/* Candidates per lock hold: shrink_inactive_list()'s batch. */
#define GMM_UW_BATCH		SWAP_CLUSTER_MAX
/* Folios looked at per lock hold (interrupts are off meanwhile). */
#define GMM_UW_HOLD_SCAN	512

/* What one lock hold found: candidates, each with a reference. */
struct gmm_uw_batch {
	struct folio *folios[GMM_UW_BATCH];
	unsigned int nr;
	unsigned long scanned;		/* pages looked at */
};

static bool gmm_uw_stopped(struct gmm_um_pass *p)
{
	if (p->st.stop < 0)
		p->st.stop = p->stop(p);
	return p->st.stop >= 0;
}

/* A batch has no room for another candidate, or the hold lasted enough. */
static bool gmm_uw_batch_full(const struct gmm_uw_batch *b)
{
	return b->nr == GMM_UW_BATCH || b->scanned >= GMM_UW_HOLD_SCAN;
}

/*
 * Whether @folio, on one of the file lists the pass walks, is page cache
 * we may take: unmapped, clean, not under writeback, unlocked.  Counts
 * the others.  Flags and mapcount can change as soon as the lru_lock is
 * dropped: gmm_uw_isolate() and shrink_folio_list() look again.
 */
static bool gmm_uw_candidate(struct gmm_um_pass *p, struct folio *folio)
{
	unsigned long nr = folio_nr_pages(folio);

	/*
	 * !PG_lru: being isolated by someone else.  Anon on a file list:
	 * lazyfree (MADV_FREE), not page cache.
	 */
	if (!folio_test_lru(folio) || folio_test_unevictable(folio) ||
	    folio_test_anon(folio) || folio_zonenum(folio) > p->reclaim_idx)
		p->st.skipped_other += nr;
	else if (folio_mapped(folio))
		p->st.skipped_mapped += nr;
	else if (folio_test_dirty(folio))
		p->st.skipped_dirty += nr;
	else if (folio_test_writeback(folio))
		p->st.skipped_writeback += nr;
	else if (folio_test_locked(folio))
		p->st.skipped_locked += nr;
	else
		return true;
	return false;
}

/* Under the lru_lock: keep @folio for gmm_uw_isolate(), in place. */
static bool gmm_uw_take(struct gmm_um_pass *p, struct gmm_uw_batch *b,
			struct folio *folio)
{
	if (!folio_try_get(folio))	/* being freed */
		return false;
	b->folios[b->nr++] = folio;
	p->candidates++;
	return true;
}

/*
 * Isolate the batch's folios onto @list, lru_lock not held; returns the
 * pages isolated.  Drops the batch's references.
 */
static unsigned long gmm_uw_isolate(struct gmm_um_pass *p,
				    struct gmm_uw_batch *b,
				    struct list_head *list)
{
	unsigned long nr = 0;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		struct folio *folio = b->folios[i];

		if (!klpr_folio_isolate_lru(folio)) {
			p->st.raced += folio_nr_pages(folio);
		} else if (folio_mapped(folio) || folio_test_dirty(folio) ||
			   folio_test_writeback(folio)) {
			/* changed since we looked: back, PG_active as it was */
			p->st.raced += folio_nr_pages(folio);
			klpe_folio_putback_lru(folio);
		} else {
			/*
			 * shrink_folio_list() wants no PG_active: a folio
			 * from the classic active list has it, and
			 * lru_gen_del_folio() sets it for the two youngest
			 * MGLRU generations.
			 */
			folio_clear_active(folio);
			list_add(&folio->lru, list);
			nr += folio_nr_pages(folio);
		}
		folio_put(folio);
	}
	b->nr = 0;
	return nr;
}

/*
 * Count @nr pages of @lruvec as kswapd's, as shrink_inactive_list() of
 * 6.1 and 6.12 counts its scans and steals: the kswapd event (@kswapd)
 * for the node and the memcg, the file event (@file) for the node.
 */
static void gmm_uw_count(struct lruvec *lruvec, enum vm_event_item kswapd,
			 enum vm_event_item file, unsigned long nr)
{
	struct mem_cgroup *memcg = lruvec_memcg(lruvec);
	unsigned long flags;

	if (!nr)
		return;
	count_vm_events(kswapd, nr);
	count_vm_events(file, nr);
	if (!memcg)
		return;
	local_irq_save(flags);
	klpe___count_memcg_events(memcg, kswapd, nr);
	local_irq_restore(flags);
}

/* What shrink_folio_list() did not free goes back to the LRU. */
static void gmm_uw_putback(struct list_head *list)
{
	struct folio *folio, *next;

	list_for_each_entry_safe(folio, next, list, lru) {
		list_del(&folio->lru);
		klpe_folio_putback_lru(folio);
	}
}

/*
 * Free what @b holds, lru_lock not held: isolate, shrink_folio_list(),
 * put back the rest.  Our scan_control: no unmapping, no writing, no
 * swapping, no demotion; kswapd's gfp and priority.
 */
static void gmm_uw_shrink(struct gmm_um_pass *p, struct lruvec *lruvec,
			  struct gmm_uw_batch *b)
{
	struct scan_control sc = {
		.nr_to_reclaim = GMM_UW_BATCH,
		.gfp_mask = GFP_KERNEL,
		.priority = DEF_PRIORITY,
		.reclaim_idx = p->reclaim_idx,
		.may_writepage = 0,
		.may_unmap = 0,
		.may_swap = 0,
		.no_demotion = 1,
	};
	struct pglist_data *pgdat = p->pgdat;
	struct reclaim_stat stat;
	unsigned long nr, freed;
	LIST_HEAD(list);

	gmm_uw_count(lruvec, PGSCAN_KSWAPD, PGSCAN_FILE, b->scanned);
	p->st.scanned += b->scanned;
	b->scanned = 0;
	nr = gmm_uw_isolate(p, b, &list);
	if (!nr)
		return;

	p->st.isolated += nr;
	mod_node_page_state(pgdat, NR_ISOLATED_FILE, nr);
	freed = klpe_shrink_folio_list(&list, pgdat, &sc, &stat, false);
	gmm_uw_putback(&list);
	mod_node_page_state(pgdat, NR_ISOLATED_FILE, -(long)nr);
	gmm_uw_count(lruvec, PGSTEAL_KSWAPD, PGSTEAL_FILE, freed);
	p->st.reclaimed += freed;
}

/* ---- classic LRU ------------------------------------------------------ */

/*
 * Whether @folio, a cursor kept across an unlock, is still on list @lru
 * of @lruvec.
 */
static bool gmm_uw_cursor_valid(struct lruvec *lruvec, enum lru_list lru,
				struct folio *folio)
{
	lockdep_assert_held(&lruvec->lru_lock);
#ifdef CONFIG_LRU_GEN
	if (folio_lru_gen(folio) != -1)
		return false;
#endif
	return folio_test_lru(folio) && folio_lru_list(folio) == lru &&
	       folio_matches_lruvec(folio, lruvec);
}

/*
 * One lock hold on classic list @lru, from *@cursor (or the tail) towards
 * the head.  Nothing moves.  Returns true when the head was reached;
 * else *@cursor is the first folio not looked at, referenced (NULL if it
 * could not be: the next hold starts at the tail again).
 */
static bool gmm_uw_classic_hold(struct gmm_um_pass *p, struct lruvec *lruvec,
				enum lru_list lru, struct folio **cursor,
				struct gmm_uw_batch *b)
{
	struct list_head *head = &lruvec->lists[lru];
	struct list_head *pos = *cursor ? &(*cursor)->lru : head->prev;

	lockdep_assert_held(&lruvec->lru_lock);
	*cursor = NULL;
	for (; pos != head; pos = pos->prev) {
		struct folio *folio = list_entry(pos, struct folio, lru);

		if (gmm_uw_batch_full(b)) {
			if (folio_try_get(folio))
				*cursor = folio;
			return false;
		}
		b->scanned += folio_nr_pages(folio);
		if (gmm_uw_candidate(p, folio))
			gmm_uw_take(p, b, folio);
	}
	return true;
}

static void gmm_uw_classic_list(struct gmm_um_pass *p, struct lruvec *lruvec,
				enum lru_list lru)
{
	struct folio *cursor = NULL, *old;
	struct gmm_uw_batch b = { };
	bool done = false;

	while (!done && !gmm_uw_stopped(p)) {
		spin_lock_irq(&lruvec->lru_lock);
		old = cursor;
		if (cursor && !gmm_uw_cursor_valid(lruvec, lru, cursor))
			cursor = NULL;
		done = gmm_uw_classic_hold(p, lruvec, lru, &cursor, &b);
		spin_unlock_irq(&lruvec->lru_lock);
		/* unlocked: a last folio_put() takes the lru_lock */
		if (old)
			folio_put(old);
		gmm_uw_shrink(p, lruvec, &b);
		cond_resched();
	}
	if (cursor)
		folio_put(cursor);
}

static void gmm_uw_classic(struct gmm_um_pass *p, struct lruvec *lruvec)
{
	gmm_uw_classic_list(p, lruvec, LRU_INACTIVE_FILE);
	gmm_uw_classic_list(p, lruvec, LRU_ACTIVE_FILE);
}

/* ---- MGLRU ------------------------------------------------------------ */

#ifdef CONFIG_LRU_GEN
/*
 * One lock hold on the file list of generation @gen, zone @zone, from the
 * tail; *@budget bounds the walk of the list (folios we keep cycle to the
 * head).  Returns true if the list has more for another hold.
 *
 * What happens to a folio we do not take mirrors scan_folios() and
 * sort_folio() of mm/vmscan.c (6.1 and 6.12).  guestmm:
 * mapped, dirty, writeback and locked folios keep their generation (the
 * kernel moves dirty/writeback/locked ones one generation up and, on
 * 6.12, rejects mapped ones into the youngest); tiers above the pass's
 * limit keep theirs too (the kernel protects them one generation up);
 * candidates stay in place until gmm_uw_isolate().
 */
static bool gmm_uw_gen_hold(struct gmm_um_pass *p, struct lruvec *lruvec,
			    int gen, int zone, long *budget,
			    struct gmm_uw_batch *b)
{
	typeof(lruvec->lrugen) *lrugen = &lruvec->lrugen;
	struct list_head *head = &lrugen->folios[gen][LRU_GEN_FILE][zone];
	struct list_head *pos, *prev;

	lockdep_assert_held(&lruvec->lru_lock);
	for (pos = head->prev; pos != head; pos = prev) {
		struct folio *folio = list_entry(pos, struct folio, lru);
		unsigned long nr = folio_nr_pages(folio);
		int fgen = folio_lru_gen(folio);

		if (*budget <= 0)
			return false;
		if (gmm_uw_batch_full(b))
			return true;
		prev = pos->prev;
		*budget -= nr;
		b->scanned += nr;

		/* promoted by aging: to its own list, as sort_folio() */
		if (fgen >= 0 && fgen != gen) {
			list_move(&folio->lru,
				  &lrugen->folios[fgen][LRU_GEN_FILE][zone]);
			continue;
		}
		if (gmm_uw_candidate(p, folio)) {
			if (lru_tier_from_refs(folio_lru_refs(folio)) >
			    p->tier_limit)
				p->st.skipped_other += nr;
			else if (gmm_uw_take(p, b, folio))
				continue;
		}
		/* kept, same generation: as scan_folios()' "moved" list */
		list_move(&folio->lru, head);
	}
	return false;
}

/* Whether generation @seq is still there, between two lock holds. */
static bool gmm_uw_gen_valid(struct lruvec *lruvec, unsigned long seq)
{
	typeof(lruvec->lrugen) *lrugen = &lruvec->lrugen;

	lockdep_assert_held(&lruvec->lru_lock);
	return lrugen->enabled && seq >= lrugen->min_seq[LRU_GEN_FILE] &&
	       seq < lrugen->max_seq;
}

static void gmm_uw_gen_list(struct gmm_um_pass *p, struct lruvec *lruvec,
			    unsigned long seq, int zone)
{
	int gen = lru_gen_from_seq(seq);
	long budget = READ_ONCE(lruvec->lrugen.nr_pages[gen][LRU_GEN_FILE][zone]);
	struct gmm_uw_batch b = { };
	bool more = budget > 0;

	while (more && !gmm_uw_stopped(p)) {
		spin_lock_irq(&lruvec->lru_lock);
		more = gmm_uw_gen_valid(lruvec, seq) &&
		       gmm_uw_gen_hold(p, lruvec, gen, zone, &budget, &b);
		spin_unlock_irq(&lruvec->lru_lock);
		gmm_uw_shrink(p, lruvec, &b);
		cond_resched();
	}
}

/* Oldest generation first, never the youngest (max_seq). */
static void gmm_uw_lru_gen(struct gmm_um_pass *p, struct lruvec *lruvec)
{
	typeof(lruvec->lrugen) *lrugen = &lruvec->lrugen;
	unsigned long seq;
	int zone;

	p->st.lru_gen = true;
	for (seq = READ_ONCE(lrugen->min_seq[LRU_GEN_FILE]);
	     seq < READ_ONCE(lrugen->max_seq); seq++) {
		for (zone = 0; zone <= p->reclaim_idx; zone++) {
			if (gmm_uw_stopped(p))
				return;
			gmm_uw_gen_list(p, lruvec, seq, zone);
		}
	}
}

static bool gmm_uw_lru_gen_on(struct lruvec *lruvec)
{
	return READ_ONCE(lruvec->lrugen.enabled);
}
#else
static void gmm_uw_lru_gen(struct gmm_um_pass *p, struct lruvec *lruvec)
{
}

static bool gmm_uw_lru_gen_on(struct lruvec *lruvec)
{
	return false;
}
#endif /* CONFIG_LRU_GEN */

/* ---- the node --------------------------------------------------------- */

/*
 * Below memory.min or memory.low: not ours to take (the kernel reclaims
 * below low only when it must, sc->memcg_low_reclaim; we never must).
 * As shrink_node_memcgs() of 6.1 and 6.12 decides it, for kswapd's target
 * (NULL).
 */
static bool gmm_uw_protected(struct gmm_um_pass *p, struct mem_cgroup *memcg)
{
	if (!memcg)
		return false;
	klpe_mem_cgroup_calculate_protection(NULL, memcg);
	if (!klpr_mem_cgroup_below(NULL, memcg, false) &&
	    !klpr_mem_cgroup_below(NULL, memcg, true))
		return false;
	p->st.protected_memcgs++;
	return true;
}

static void gmm_uw_lruvec(struct gmm_um_pass *p, struct lruvec *lruvec)
{
	if (gmm_uw_lru_gen_on(lruvec))
		gmm_uw_lru_gen(p, lruvec);
	else
		gmm_uw_classic(p, lruvec);
}

/* Every memcg's lruvec on the node (just the node's without memcg). */
static void gmm_uw_node(struct gmm_um_pass *p)
{
	struct mem_cgroup *memcg = klpe_mem_cgroup_iter(NULL, NULL, NULL);

	do {
		if (!gmm_uw_protected(p, memcg))
			gmm_uw_lruvec(p, klpr_mem_cgroup_lruvec(memcg, p->pgdat));
		if (gmm_uw_stopped(p)) {
			if (memcg)
				klpe_mem_cgroup_iter_break(NULL, memcg);
			return;
		}
		cond_resched();
	} while ((memcg = klpe_mem_cgroup_iter(NULL, memcg, NULL)));
}

void gmm_uw_run(struct gmm_um_pass *p)
{
	if (gmm_uw_stopped(p))
		return;
	/* this CPU's pagevecs: page cache just read is not on an LRU yet */
	klpe_lru_add_drain();
	p->tier_limit = 0;
	gmm_uw_node(p);
	/* MGLRU: nothing in tier 0 anywhere; the analogue of a priority */
	if (!gmm_uw_stopped(p) && p->st.lru_gen && !p->candidates) {
		p->tier_limit = MAX_NR_TIERS - 1;
		gmm_uw_node(p);
	}
	if (!gmm_uw_stopped(p))
		p->st.stop = GMM_UM_STOP_EXHAUSTED;
	/* dirty page cache in the way: the flushers write it, we never do */
	if (p->st.skipped_dirty && p->st.reclaimed < p->nr_to_reclaim) {
		klpe_wakeup_flusher_threads(WB_REASON_VMSCAN);
		p->woke_flusher = true;
	}
}
