// SPDX-License-Identifier: GPL-2.0
/*
 * guestmm_highalloc: the stress-highalloc probe, as a test/benchmark module.
 *
 * Writing N to /sys/kernel/debug/guestmm_highalloc/alloc tries N
 * allocations of 2^order pages, the way mmtests' stress-highalloc did it
 * (GFP_HIGHUSER_MOVABLE | __GFP_RETRY_MAYFAIL: reclaim and compaction
 * allowed, failure allowed) and keeps what it gets, so that every attempt
 * sees the memory the earlier ones took.  Reading the same file reports
 * the attempts, the successes and the total and worst latency; writing 0
 * frees everything.  Unloading frees everything too.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#ifndef MAX_PAGE_ORDER	/* 6.1: MAX_ORDER is one past the largest order */
#define MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

static unsigned int order = 9;
module_param(order, uint, 0444);
MODULE_PARM_DESC(order, "allocation order (default 9, a 2 MiB block on x86)");

static DEFINE_MUTEX(ha_lock);	/* protects everything below */
static LIST_HEAD(ha_pages);
static unsigned long ha_attempts, ha_success;
static u64 ha_total_ns, ha_max_ns;
static struct dentry *ha_dir;

static void ha_free_all(void)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &ha_pages, lru) {
		list_del(&page->lru);
		__free_pages(page, order);
	}
	ha_attempts = 0;
	ha_success = 0;
	ha_total_ns = 0;
	ha_max_ns = 0;
}

static void ha_alloc(unsigned long n)
{
	const gfp_t gfp = GFP_HIGHUSER_MOVABLE | __GFP_RETRY_MAYFAIL |
			  __GFP_NOWARN;
	struct page *page;
	u64 t0, dt;

	while (n--) {
		t0 = ktime_get_ns();
		page = alloc_pages(gfp, order);
		dt = ktime_get_ns() - t0;
		ha_attempts++;
		ha_total_ns += dt;
		ha_max_ns = max(ha_max_ns, dt);
		if (page) {
			ha_success++;
			list_add_tail(&page->lru, &ha_pages);
		}
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
}

static ssize_t ha_write(struct file *file, const char __user *buf,
			size_t len, loff_t *ppos)
{
	unsigned long n;
	int ret;

	ret = kstrtoul_from_user(buf, len, 0, &n);
	if (ret) {
		pr_err("guestmm_highalloc: write a count of allocations, or 0 to free\n");
		return ret;
	}
	if (n > totalram_pages() >> order) {
		pr_err("guestmm_highalloc: %lu order-%u allocations exceed RAM\n",
		       n, order);
		return -EINVAL;
	}
	mutex_lock(&ha_lock);
	if (n)
		ha_alloc(n);
	else
		ha_free_all();
	mutex_unlock(&ha_lock);
	return len;
}

static int ha_show(struct seq_file *m, void *v)
{
	mutex_lock(&ha_lock);
	seq_printf(m, "order=%u attempts=%lu success=%lu total_us=%llu max_us=%llu\n",
		   order, ha_attempts, ha_success, ha_total_ns / NSEC_PER_USEC,
		   ha_max_ns / NSEC_PER_USEC);
	mutex_unlock(&ha_lock);
	return 0;
}

static int ha_open(struct inode *inode, struct file *file)
{
	return single_open(file, ha_show, NULL);
}

static const struct file_operations ha_fops = {
	.owner = THIS_MODULE,
	.open = ha_open,
	.read = seq_read,
	.write = ha_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init ha_init(void)
{
	if (order == 0 || order > MAX_PAGE_ORDER) {
		pr_err("guestmm_highalloc: order must be 1..%d\n", MAX_PAGE_ORDER);
		return -EINVAL;
	}
	ha_dir = debugfs_create_dir("guestmm_highalloc", NULL);
	debugfs_create_file("alloc", 0600, ha_dir, NULL, &ha_fops);
	return 0;
}

static void __exit ha_exit(void)
{
	debugfs_remove_recursive(ha_dir);
	mutex_lock(&ha_lock);
	ha_free_all();
	mutex_unlock(&ha_lock);
}

module_init(ha_init);
module_exit(ha_exit);
MODULE_DESCRIPTION("guestmm test module: high-order allocation probe (stress-highalloc)");
MODULE_LICENSE("GPL");
