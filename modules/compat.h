/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between Debian's 6.1 and 6.12 kernels that
 * guestmm modules care about.  Nothing else belongs here: every kernel
 * version test in the tree lives in this file, through GMM_KERNEL_GE().
 */
#ifndef _GUESTMM_COMPAT_H
#define _GUESTMM_COMPAT_H

#include <linux/version.h>
#include <linux/err.h>
#include <linux/mmzone.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/virtio_config.h>
#include <uapi/linux/virtio_balloon.h>

/* True when building against kernel maj.min or later. */
#define GMM_KERNEL_GE(maj, min)					\
	((maj) < LINUX_VERSION_MAJOR ||				\
	 ((maj) == LINUX_VERSION_MAJOR && (min) <= LINUX_VERSION_PATCHLEVEL))

#if GMM_KERNEL_GE(6, 17) && !defined(GMM_LINT_NEXT) /* make lint-next LINT_NEXT_IGNORE_GUARD=1 */
/*
 * 6.17 reworked movable_ops (no more __SetPageMovable) and later kernels
 * moved the balloon core to mm/balloon.c.  Not supported yet.
 */
#error "guestmm: kernels >= 6.17 are not supported (balloon/movable_ops API)"
#endif

/*
 * Largest buddy order, inclusive.  6.1: MAX_ORDER is exclusive; 6.4 made
 * it inclusive; 6.8 renamed it MAX_PAGE_ORDER.
 */
#if GMM_KERNEL_GE(6, 8)
#define GMM_MAX_PAGE_ORDER	MAX_PAGE_ORDER
#elif GMM_KERNEL_GE(6, 4)
#define GMM_MAX_PAGE_ORDER	MAX_ORDER
#else
#define GMM_MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

/*
 * MIGRATE_SYNC_NO_COPY (no users left) was removed in 6.10.  Balloon
 * pages cannot be migrated without the copy step, so refuse that mode
 * where it exists, as the balloon core does.
 */
#if GMM_KERNEL_GE(6, 10)
#define gmm_migrate_no_copy(mode)	false
#else
#define gmm_migrate_no_copy(mode)	((mode) == MIGRATE_SYNC_NO_COPY)
#endif

/* Stats tags added to the uapi header in 6.12; sent on every kernel. */
#ifndef VIRTIO_BALLOON_S_OOM_KILL
#define VIRTIO_BALLOON_S_OOM_KILL	10
#define VIRTIO_BALLOON_S_ALLOC_STALL	11
#define VIRTIO_BALLOON_S_ASYNC_SCAN	12
#define VIRTIO_BALLOON_S_DIRECT_SCAN	13
#define VIRTIO_BALLOON_S_ASYNC_RECLAIM	14
#define VIRTIO_BALLOON_S_DIRECT_RECLAIM	15
#endif
#define GMM_BALLOON_S_NR		16

/*
 * virtio_find_vqs(): 6.11 replaced the callbacks[]/names[] arrays with an
 * array of struct virtqueue_info.  A NULL name still means "no such queue"
 * and does not consume a queue index.
 */
#define GMM_MAX_VQS	8

static inline int gmm_find_vqs(struct virtio_device *vdev, unsigned int nvqs,
			       struct virtqueue *vqs[],
			       vq_callback_t *callbacks[],
			       const char * const names[])
{
#if GMM_KERNEL_GE(6, 11)
	struct virtqueue_info info[GMM_MAX_VQS] = {};
	unsigned int i;

	if (WARN_ON(nvqs > GMM_MAX_VQS))
		return -EINVAL;
	for (i = 0; i < nvqs; i++) {
		info[i].name = names[i];
		info[i].callback = callbacks[i];
	}
	return virtio_find_vqs(vdev, nvqs, vqs, info, NULL);
#else
	return virtio_find_vqs(vdev, nvqs, vqs, callbacks, names, NULL);
#endif
}

/*
 * Shrinkers: 6.7 removed register_shrinker() in favour of
 * shrinker_alloc()/shrinker_register()/shrinker_free() with a
 * private_data pointer.  On older kernels we embed the shrinker in a
 * small wrapper that carries the private pointer.
 */
typedef unsigned long (*gmm_shrink_fn)(struct shrinker *s,
				       struct shrink_control *sc);

#if GMM_KERNEL_GE(6, 7)
static inline struct shrinker *gmm_shrinker_create(gmm_shrink_fn count,
						   gmm_shrink_fn scan,
						   void *priv,
						   const char *name)
{
	struct shrinker *s = shrinker_alloc(0, "%s", name);

	if (!s)
		return ERR_PTR(-ENOMEM);
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
	s->private_data = priv;
	shrinker_register(s);
	return s;
}

static inline void gmm_shrinker_destroy(struct shrinker *s)
{
	shrinker_free(s);
}

static inline void *gmm_shrinker_priv(struct shrinker *s)
{
	return s->private_data;
}
#else
struct gmm_compat_shrinker {
	struct shrinker shrinker;
	void *priv;
};

static inline struct shrinker *gmm_shrinker_create(gmm_shrink_fn count,
						   gmm_shrink_fn scan,
						   void *priv,
						   const char *name)
{
	struct gmm_compat_shrinker *cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	int err;

	if (!cs)
		return ERR_PTR(-ENOMEM);
	cs->shrinker.count_objects = count;
	cs->shrinker.scan_objects = scan;
	cs->shrinker.seeks = DEFAULT_SEEKS;
	cs->priv = priv;
	err = register_shrinker(&cs->shrinker, "%s", name);
	if (err) {
		kfree(cs);
		return ERR_PTR(err);
	}
	return &cs->shrinker;
}

static inline void gmm_shrinker_destroy(struct shrinker *s)
{
	unregister_shrinker(s);
	kfree(container_of(s, struct gmm_compat_shrinker, shrinker));
}

static inline void *gmm_shrinker_priv(struct shrinker *s)
{
	return container_of(s, struct gmm_compat_shrinker, shrinker)->priv;
}
#endif

#endif /* _GUESTMM_COMPAT_H */
