#!/usr/bin/env python3
"""Writes routing files (docs/synthetic-data-and-routing.md, "Routing file format") that part what the random and
balanced routings differ in, for call10.sh; each token's topk experts are distinct:
  PREFIX_random_ids_equal_weights.txt       uniform random experts, weights 1/topk: the random ids alone;
  PREFIX_balanced_ids_softmax_weights.txt   moetune's balanced ids (slot s of token t: expert (t*topk + s) mod E)
                                            with softmax weights of topk normal scores: the balanced ids alone;
  PREFIX_permuted_balanced_ids.txt          the balanced ids through a random permutation of the experts: each
                                            expert's tokens still evenly spaced, but experts next to each other in
                                            the walk no longer share most of their tokens;
  PREFIX_blocked_ids.txt                    slot s of token t: expert (t*E // M + s*(E // topk)) mod E: an
                                            expert's tokens lie in topk runs of consecutive tokens (its rows nearly
                                            contiguous in [M, topk]), neighbours in the walk share few tokens.
The last two take equal weights.
    python3 routing_files.py EXPERTS TOPK TOKENS PREFIX
"""
import math
import random
import sys


def softmax_weights(rng, topk):
    scores = sorted((rng.gauss(0.0, 1.0) for _ in range(topk)), reverse=True)
    e = [math.exp(s - scores[0]) for s in scores]
    return [x / sum(e) for x in e]


def write(path, rows):
    with open(path, "w") as f:
        for ids, weights in rows:
            f.write(" ".join(map(str, ids)) + " ; " + " ".join(f"{w:.6f}" for w in weights) + "\n")


def main():
    experts, topk, tokens, prefix = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(0)
    equal = [1.0 / topk] * topk
    balanced = [[(t * topk + s) % experts for s in range(topk)] for t in range(tokens)]
    write(prefix + "_random_ids_equal_weights.txt", [(rng.sample(range(experts), topk), equal) for _ in range(tokens)])
    write(prefix + "_balanced_ids_softmax_weights.txt", [(ids, softmax_weights(rng, topk)) for ids in balanced])
    permutation = rng.sample(range(experts), experts)
    write(prefix + "_permuted_balanced_ids.txt", [([permutation[e] for e in ids], equal) for ids in balanced])
    step = experts // topk
    write(prefix + "_blocked_ids.txt",
          [([(t * experts // tokens + s * step) % experts for s in range(topk)], equal) for t in range(tokens)])


main()
