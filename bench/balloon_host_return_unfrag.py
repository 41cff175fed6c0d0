"""Host memory back per MiB ballooned: unfragmented guest, free page reporting off

One cell of the host-return matrix (scripts/guest/hostreturn.py says how
the guest is prepared): a 256 MiB inflate, and the QEMU process's Rss and
AnonHugePages (smaps_rollup) before and after it.  Stock virtio_balloon is
the baseline; guestmm's default (2 MiB chunks, the host-return rule of
modules/balloon/source.c) and chunk_order=0 beside it.  Goals: Rss freed
per MiB ballooned at least stock's, host THP lost at most 1.1 MiB per MiB
freed, inflate at least 1.5x stock's MiB/s.
"""
from hostreturn import bench_spec

VARIANTS, METRICS, measure = bench_spec(fragmented=False, reporting=False)
