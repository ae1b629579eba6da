# Mean µs per kernel name (first 60 characters) of an ncu --csv gpu__time_duration.sum log (argv[1]).
import sys, csv, collections
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
d = collections.defaultdict(list)
for r in csv.DictReader(rows):
    if r.get('Metric Name') == 'gpu__time_duration.sum':
        v = float(r['Metric Value'].replace(',', ''))
        d[r['Kernel Name'][:60]].append(v / 1000 if r.get('Metric Unit') == 'nsecond' else v)
for k, v in d.items(): print('%-60s n=%d mean %.1f us' % (k, len(v), sum(v) / len(v)))
