//===- MinCut.cpp - Exact CPU/GPU placement as an s-t minimum cut --------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/MinCut.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>

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
/// Dinic's maximum flow on double capacities.
class MaxFlow {
public:
  explicit MaxFlow(size_t numNodes) : adjacency(numNodes) {}

  void addEdge(size_t from, size_t to, double capacity) {
    if (capacity <= 0)
      return;
    adjacency[from].push_back(edges.size());
    edges.push_back({to, capacity});
    adjacency[to].push_back(edges.size());
    edges.push_back({from, 0});
  }

  double run(size_t source, size_t sink) {
    double flow = 0;
    while (buildLevels(source, sink)) {
      next.assign(adjacency.size(), 0);
      while (double pushed = push(source, sink, kForbidden * 4))
        flow += pushed;
    }
    return flow;
  }

  /// Nodes reachable from `source` in the residual graph (the source side of
  /// a minimum cut).
  std::vector<bool> sourceSide(size_t source) const {
    std::vector<bool> seen(adjacency.size(), false);
    std::vector<size_t> stack = {source};
    seen[source] = true;
    while (!stack.empty()) {
      size_t node = stack.back();
      stack.pop_back();
      for (size_t e : adjacency[node]) {
        if (edges[e].capacity > kEpsilon && !seen[edges[e].to]) {
          seen[edges[e].to] = true;
          stack.push_back(edges[e].to);
        }
      }
    }
    return seen;
  }

private:
  struct Edge {
    size_t to;
    double capacity;
  };
  static constexpr double kEpsilon = 1e-18;

  bool buildLevels(size_t source, size_t sink) {
    level.assign(adjacency.size(), -1);
    std::queue<size_t> queue;
    level[source] = 0;
    queue.push(source);
    while (!queue.empty()) {
      size_t node = queue.front();
      queue.pop();
      for (size_t e : adjacency[node]) {
        if (edges[e].capacity > kEpsilon && level[edges[e].to] < 0) {
          level[edges[e].to] = level[node] + 1;
          queue.push(edges[e].to);
        }
      }
    }
    return level[sink] >= 0;
  }

  /// Iterative blocking-flow step: one augmenting path in the level graph.
  double push(size_t source, size_t sink, double limit) {
    std::vector<size_t> path; // edge indices
    size_t node = source;
    while (true) {
      if (node == sink) {
        double amount = limit;
        for (size_t e : path)
          amount = std::min(amount, edges[e].capacity);
        for (size_t e : path) {
          edges[e].capacity -= amount;
          edges[e ^ 1].capacity += amount;
        }
        return amount;
      }
      bool advanced = false;
      for (size_t &i = next[node]; i < adjacency[node].size(); ++i) {
        size_t e = adjacency[node][i];
        if (edges[e].capacity > kEpsilon &&
            level[edges[e].to] == level[node] + 1) {
          path.push_back(e);
          node = edges[e].to;
          advanced = true;
          break;
        }
      }
      if (advanced)
        continue;
      // Dead end: retreat and never try this node again in this phase.
      level[node] = -1;
      if (path.empty())
        return 0;
      size_t e = path.back();
      path.pop_back();
      node = edges[e ^ 1].to;
      ++next[node];
    }
  }

  std::vector<std::vector<size_t>> adjacency;
  std::vector<Edge> edges;
  std::vector<int64_t> level;
  std::vector<size_t> next;
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
