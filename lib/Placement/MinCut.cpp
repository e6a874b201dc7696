//===- MinCut.cpp - Exact CPU/GPU placement as an s-t minimum cut --------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/MinCut.h"

#include <algorithm>
#include <cstdint>
#include <limits>

using namespace mlir::tide;

double mlir::tide::evaluatePlacement(const PlacementProblem &problem,
                                     const std::vector<bool> &onGPU) {
  double cost = 0;
  for (size_t i = 0; i < problem.nodes.size(); ++i)
    cost += onGPU[i] ? problem.nodes[i].gpuCost : problem.nodes[i].cpuCost;
  for (const PlacementProblem::ValueEdge &value : problem.values) {
    bool anyGPU = false, anyCPU = false;
    for (unsigned consumer : value.consumers) {
      anyGPU |= onGPU[consumer];
      anyCPU |= !onGPU[consumer];
    }
    if (!onGPU[value.producer] && anyGPU)
      cost += value.hostToDevice;
    if (onGPU[value.producer] && anyCPU)
      cost += value.deviceToHost;
  }
  return cost;
}

namespace {
/// Dinic's maximum flow on double capacities. Edges are added first, then
/// laid out contiguously per node (CSR) before the flow runs: one allocation
/// for the whole graph however many nodes it has.
class MaxFlow {
public:
  explicit MaxFlow(size_t numNodes) : numNodes(numNodes) {}

  void addEdge(uint32_t from, uint32_t to, double capacity) {
    if (capacity <= 0)
      return;
    pending.push_back({from, to, capacity});
  }

  double run(uint32_t source, uint32_t sink) {
    layout();
    double flow = 0;
    while (buildLevels(source, sink)) {
      std::copy(first.begin(), first.end() - 1, next.begin());
      while (double pushed = push(source, sink))
        flow += pushed;
    }
    return flow;
  }

  /// Nodes reachable from `source` in the residual graph (the source side of
  /// a minimum cut).
  std::vector<bool> sourceSide(uint32_t source) const {
    std::vector<bool> seen(numNodes, false);
    std::vector<uint32_t> stack = {source};
    seen[source] = true;
    while (!stack.empty()) {
      uint32_t node = stack.back();
      stack.pop_back();
      for (uint32_t e = first[node]; e < first[node + 1]; ++e) {
        if (capacity[e] > kEpsilon && !seen[to[e]]) {
          seen[to[e]] = true;
          stack.push_back(to[e]);
        }
      }
    }
    return seen;
  }

private:
  struct Pending {
    uint32_t from, to;
    double capacity;
  };
  static constexpr double kEpsilon = 1e-18;

  /// Every edge and its reverse, grouped by tail node.
  void layout() {
    first.assign(numNodes + 1, 0);
    for (const Pending &p : pending) {
      ++first[p.from + 1];
      ++first[p.to + 1];
    }
    for (size_t i = 0; i < numNodes; ++i)
      first[i + 1] += first[i];
    size_t numEdges = first[numNodes];
    to.resize(numEdges);
    capacity.resize(numEdges);
    reverse.resize(numEdges);
    std::vector<uint32_t> fill(first.begin(), first.end() - 1);
    for (const Pending &p : pending) {
      uint32_t forward = fill[p.from]++, backward = fill[p.to]++;
      to[forward] = p.to;
      capacity[forward] = p.capacity;
      reverse[forward] = backward;
      to[backward] = p.from;
      capacity[backward] = 0;
      reverse[backward] = forward;
    }
    pending.clear();
    pending.shrink_to_fit();
    level.resize(numNodes);
    next.resize(numNodes);
  }

  bool buildLevels(uint32_t source, uint32_t sink) {
    std::fill(level.begin(), level.end(), -1);
    std::vector<uint32_t> queue = {source};
    level[source] = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
      uint32_t node = queue[head];
      for (uint32_t e = first[node]; e < first[node + 1]; ++e) {
        if (capacity[e] > kEpsilon && level[to[e]] < 0) {
          level[to[e]] = level[node] + 1;
          queue.push_back(to[e]);
        }
      }
    }
    return level[sink] >= 0;
  }

  /// One augmenting path in the level graph (iterative depth-first search).
  double push(uint32_t source, uint32_t sink) {
    path.clear();
    uint32_t node = source;
    while (true) {
      if (node == sink) {
        double amount = kForbidden * 4;
        for (uint32_t e : path)
          amount = std::min(amount, capacity[e]);
        for (uint32_t e : path) {
          capacity[e] -= amount;
          capacity[reverse[e]] += amount;
        }
        return amount;
      }
      bool advanced = false;
      for (uint32_t &e = next[node]; e < first[node + 1]; ++e) {
        if (capacity[e] > kEpsilon && level[to[e]] == level[node] + 1) {
          path.push_back(e);
          node = to[e];
          advanced = true;
          break;
        }
      }
      if (advanced)
        continue;
      // Dead end: never enter this node again in this phase, and retreat.
      level[node] = -1;
      if (path.empty())
        return 0;
      uint32_t e = path.back();
      path.pop_back();
      node = to[reverse[e]];
      ++next[node];
    }
  }

  size_t numNodes;
  std::vector<Pending> pending;
  std::vector<uint32_t> first, to, reverse, next, path;
  std::vector<double> capacity;
  std::vector<int32_t> level;
};
} // namespace

PlacementSolution mlir::tide::solveMinCut(const PlacementProblem &problem) {
  size_t numNodes = problem.nodes.size();
  size_t numValues = problem.values.size();
  // Nodes, then two auxiliaries per value, then source and sink.
  size_t source = numNodes + 2 * numValues, sink = source + 1;
  MaxFlow flow(sink + 1);
  for (size_t i = 0; i < numNodes; ++i) {
    flow.addEdge(source, i, problem.nodes[i].gpuCost);
    flow.addEdge(i, sink, problem.nodes[i].cpuCost);
  }
  for (size_t v = 0; v < numValues; ++v) {
    const PlacementProblem::ValueEdge &value = problem.values[v];
    size_t toGPU = numNodes + 2 * v, toCPU = toGPU + 1;
    flow.addEdge(value.producer, toGPU, value.hostToDevice);
    flow.addEdge(toCPU, value.producer, value.deviceToHost);
    for (unsigned consumer : value.consumers) {
      if (consumer == value.producer)
        continue;
      flow.addEdge(toGPU, consumer, kForbidden * 2);
      flow.addEdge(consumer, toCPU, kForbidden * 2);
    }
  }
  flow.run(source, sink);
  std::vector<bool> cpuSide = flow.sourceSide(source);
  PlacementSolution solution;
  solution.onGPU.resize(numNodes);
  for (size_t i = 0; i < numNodes; ++i)
    solution.onGPU[i] = !cpuSide[i];
  solution.cost = evaluatePlacement(problem, solution.onGPU);
  solution.feasible = solution.cost < kForbidden / 2;
  return solution;
}
