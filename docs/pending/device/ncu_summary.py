# Mean µs per kernel name (first 60 characters) of an ncu --csv gpu__time_duration.sum log (argv[1]).
import sys, csv, collections
TO_US = {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1.0, 'usecond': 1.0, 'ms': 1e3, 'msecond': 1e3}
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
d = collections.defaultdict(list)
for r in csv.DictReader(rows):
    if r.get('Metric Name') == 'gpu__time_duration.sum':
        d[r['Kernel Name'][:60]].append(float(r['Metric Value'].replace(',', '')) * TO_US[r['Metric Unit']])
for k, v in d.items(): print('%-60s n=%d mean %.1f us' % (k, len(v), sum(v) / len(v)))
