#!/usr/bin/env python3
"""Generates a large tide function for the placement benchmark.

A layered graph of N ops over f32/f64 tensors: elementwise ops, matmuls and
reductions, each op reading one or two earlier values (recent ones mostly, a
few long-range), so placement sees fan-out, mixed dtypes and casts.
Deterministic for a given seed.
"""
import random
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    t32, t64 = "tensor<64x64xf32>", "tensor<64x64xf64>"
    out = [f"func.func @big(%a: {t32}, %b: {t64}) -> ({t32}, {t64}) {{"]
    vals = {"f32": ["%a"], "f64": ["%b"]}
    unary = ["exp", "tanh", "neg", "abs", "sqrt", "sigmoid", "relu"]
    binary = ["add", "mul", "sub", "maximum", "div"]
    for i in range(n):
        dt = "f32" if rng.random() < 0.7 else "f64"
        ty = t32 if dt == "f32" else t64
        pool = vals[dt]
        def pick():
            if rng.random() < 0.9:
                return pool[-1 - min(len(pool) - 1, int(rng.expovariate(0.5)))]
            return rng.choice(pool)
        r = rng.random()
        name = f"%v{i}"
        if r < 0.45:
            out.append(f"  {name} = tide.{rng.choice(unary)} {pick()} : {ty}")
        elif r < 0.85:
            out.append(f"  {name} = tide.{rng.choice(binary)} {pick()}, {pick()} : {ty}")
        elif r < 0.92:
            out.append(f"  {name} = tide.matmul {pick()}, {pick()} : {ty}")
        elif r < 0.97:
            other = "f64" if dt == "f32" else "f32"
            oty = t64 if other == "f64" else t32
            out.append(f"  {name} = tide.cast {pick()} : {ty} to {oty}")
            vals[other].append(name)
            continue
        else:
            out.append(f"  {name} = tide.softmax {pick()} axis = 1 : {ty}")
        pool.append(name)
    out.append(f"  return {vals['f32'][-1]}, {vals['f64'][-1]} : {t32}, {t64}")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
