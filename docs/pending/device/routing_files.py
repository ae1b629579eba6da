#!/usr/bin/env python3
"""Writes two routing files (docs/synthetic-data-and-routing.md, "Routing file format") that part the expert ids
from the weights, for call10.sh: PREFIX_random_ids_equal_weights.txt (each token's topk distinct experts drawn
uniformly, weights 1/topk) and PREFIX_balanced_ids_softmax_weights.txt (moetune's balanced ids, slot s of token t
expert (t*topk + s) mod E, with softmax weights of topk normal scores, largest first, as the random routing's).
    python3 routing_files.py EXPERTS TOPK TOKENS PREFIX
"""
import math
import random
import sys


def softmax_weights(rng, topk):
    scores = sorted((rng.gauss(0.0, 1.0) for _ in range(topk)), reverse=True)
    e = [math.exp(s - scores[0]) for s in scores]
    return [x / sum(e) for x in e]


def main():
    experts, topk, tokens, prefix = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(0)
    line = lambda ids, weights: " ".join(map(str, ids)) + " ; " + " ".join(f"{w:.6f}" for w in weights) + "\n"
    with open(prefix + "_random_ids_equal_weights.txt", "w") as f:
        for _ in range(tokens):
            f.write(line(rng.sample(range(experts), topk), [1.0 / topk] * topk))
    with open(prefix + "_balanced_ids_softmax_weights.txt", "w") as f:
        for t in range(tokens):
            f.write(line([(t * topk + s) % experts for s in range(topk)], softmax_weights(rng, topk)))


main()
