"""Host memory back per MiB ballooned: fragmented guest, free page reporting off

One cell of the matrix of scripts/guest/hostreturn.py (bench_spec()).
"""
from hostreturn import bench_spec

VARIANTS, METRICS, measure = bench_spec(fragmented=True, reporting=False)
