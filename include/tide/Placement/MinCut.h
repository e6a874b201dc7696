//===- MinCut.h - Exact CPU/GPU placement as an s-t minimum cut -*- C++ -*-===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// The placement problem for one CPU and one GPU (Stone, 1977): choose a device
// for every node to minimise the sum of compute costs plus transfer costs,
// where a value produced on one device and consumed on the other is copied
// once per destination, however many consumers it has there.
//
// Graph: source = CPU side, sink = GPU side. Node v: S->v with capacity
// gpuCost(v) and v->T with capacity cpuCost(v). A value produced by u and
// consumed by w1..wk: auxiliary a with u->a = h2d and a->wi = inf (paid once
// if any consumer is on the GPU while u is on the CPU); auxiliary b with
// wi->b = inf and b->u = d2h. A minimum cut is an optimal placement.
//
// The model ignores overlap of CPU and GPU work and memory capacity.
//
//===----------------------------------------------------------------------===//

#ifndef TIDE_PLACEMENT_MINCUT_H
#define TIDE_PLACEMENT_MINCUT_H

#include <vector>

namespace mlir::tide {

/// Capacity standing for "impossible" (no kernel, or pinned elsewhere).
constexpr double kForbidden = 1e30;

struct PlacementProblem {
  struct Node {
    double cpuCost = 0; ///< seconds on the CPU (kForbidden: cannot run there)
    double gpuCost = 0; ///< seconds on the GPU (kForbidden: cannot run there)
  };
  struct ValueEdge {
    unsigned producer = 0;
    std::vector<unsigned> consumers;
    double hostToDevice = 0; ///< seconds to copy the value to the GPU
    double deviceToHost = 0; ///< seconds to copy it back
  };
  std::vector<Node> nodes;
  std::vector<ValueEdge> values;
};

/// Cost of an assignment (true = GPU) under the model above.
double evaluatePlacement(const PlacementProblem &problem,
                         const std::vector<bool> &onGPU);

struct PlacementSolution {
  std::vector<bool> onGPU;
  double cost = 0;
  bool feasible = true; ///< false when every assignment is forbidden
};

/// Solves the problem exactly with a maximum flow (Dinic's algorithm).
PlacementSolution solveMinCut(const PlacementProblem &problem);

} // namespace mlir::tide

#endif // TIDE_PLACEMENT_MINCUT_H
