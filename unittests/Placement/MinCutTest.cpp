//===- MinCutTest.cpp - The min-cut placement is optimal -----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Placement/MinCut.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::tide;

namespace {

/// Exhaustive search over every assignment.
double bruteForce(const PlacementProblem &problem) {
  size_t n = problem.nodes.size();
  double best = kForbidden * 10;
  std::vector<bool> onGPU(n);
  for (uint64_t mask = 0; mask < (uint64_t(1) << n); ++mask) {
    for (size_t i = 0; i < n; ++i)
      onGPU[i] = (mask >> i) & 1;
    best = std::min(best, evaluatePlacement(problem, onGPU));
  }
  return best;
}

/// A random DAG: each node consumes values of earlier nodes; some nodes
/// lack a kernel on one side; node 0 is a host-fixed argument.
PlacementProblem randomProblem(std::mt19937 &rng, size_t n) {
  std::uniform_real_distribution<double> cost(0.0, 10.0);
  std::uniform_int_distribution<int> coin(0, 9);
  PlacementProblem problem;
  problem.nodes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    problem.nodes[i] = {cost(rng), cost(rng)};
    int c = coin(rng);
    if (c == 0)
      problem.nodes[i].gpuCost = kForbidden;
    else if (c == 1)
      problem.nodes[i].cpuCost = kForbidden;
  }
  problem.nodes[0] = {0, kForbidden};
  for (size_t producer = 0; producer + 1 < n; ++producer) {
    PlacementProblem::ValueEdge value;
    value.producer = producer;
    for (size_t consumer = producer + 1; consumer < n; ++consumer)
      if (coin(rng) < 4)
        value.consumers.push_back(consumer);
    if (value.consumers.empty())
      continue;
    value.hostToDevice = cost(rng);
    value.deviceToHost = cost(rng);
    problem.values.push_back(value);
  }
  return problem;
}

TEST(MinCut, MatchesBruteForceOnRandomGraphs) {
  std::mt19937 rng(1977);
  for (int trial = 0; trial < 2000; ++trial) {
    size_t n = 2 + trial % 11;
    PlacementProblem problem = randomProblem(rng, n);
    PlacementSolution solution = solveMinCut(problem);
    double best = bruteForce(problem);
    if (best >= kForbidden / 2) {
      EXPECT_FALSE(solution.feasible) << "trial " << trial;
      continue;
    }
    ASSERT_TRUE(solution.feasible) << "trial " << trial;
    EXPECT_NEAR(solution.cost, best, 1e-9 * std::max(1.0, best))
        << "trial " << trial << " with " << n << " nodes";
    EXPECT_DOUBLE_EQ(solution.cost,
                     evaluatePlacement(problem, solution.onGPU));
  }
}

TEST(MinCut, TransferChargedOncePerValueAndDestination) {
  // A host value read by three GPU-only ops: one copy, not three.
  PlacementProblem problem;
  problem.nodes = {{0, kForbidden}, {kForbidden, 1}, {kForbidden, 1},
                   {kForbidden, 1}};
  problem.values.push_back({0, {1, 2, 3}, 5.0, 7.0});
  PlacementSolution solution = solveMinCut(problem);
  EXPECT_DOUBLE_EQ(solution.cost, 3 + 5.0);
}

TEST(MinCut, CheapComputeDoesNotPayForCopies) {
  // GPU is faster (1 vs 4) but the round trip costs 2 + 2.
  PlacementProblem problem;
  problem.nodes = {{0, kForbidden}, {4, 1}, {0, kForbidden}};
  problem.values.push_back({0, {1}, 2.0, 2.0});
  problem.values.push_back({1, {2}, 2.0, 2.0});
  PlacementSolution solution = solveMinCut(problem);
  EXPECT_FALSE(solution.onGPU[1]);
  EXPECT_DOUBLE_EQ(solution.cost, 4);
  // With cheaper copies the GPU wins.
  problem.values[0].hostToDevice = problem.values[1].deviceToHost = 0.5;
  solution = solveMinCut(problem);
  EXPECT_TRUE(solution.onGPU[1]);
  EXPECT_DOUBLE_EQ(solution.cost, 2);
}

TEST(MinCut, InfeasibleWhenAnOpCanRunNowhere) {
  PlacementProblem problem;
  problem.nodes = {{kForbidden, kForbidden}};
  EXPECT_FALSE(solveMinCut(problem).feasible);
}

} // namespace
