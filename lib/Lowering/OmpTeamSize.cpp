//===- OmpTeamSize.cpp - Size OpenMP parallel regions at run time ---------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//

#include "tide/Lowering/Passes.h"

#include "LoopWork.h"
#include "tide/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::tide {
#define GEN_PASS_DEF_OMPTEAMSIZEPASS
#include "tide/Lowering/Passes.h.inc"
} // namespace mlir::tide

using namespace mlir;
using namespace mlir::tide;

namespace {

struct OmpTeamSizePass
    : public tide::impl::OmpTeamSizePassBase<OmpTeamSizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (grain <= 0) {
      emitError(module.getLoc())
          << "invalid 'grain' option " << static_cast<int64_t>(grain)
          << "; it must be positive";
      return signalPassFailure();
    }
    if (threads < 0 || threads > TIDE_RT_MAX_THREADS) {
      emitError(module.getLoc())
          << "invalid 'threads' option " << static_cast<int64_t>(threads)
          << "; expected 0 (decided at run time) to " << TIDE_RT_MAX_THREADS;
      return signalPassFailure();
    }
    SmallVector<omp::ParallelOp> regions;
    module.walk([&](omp::ParallelOp region) {
      if (!region.getNumThreads())
        regions.push_back(region);
    });
    if (regions.empty())
      return;

    MLIRContext *ctx = &getContext();
    OpBuilder builder(ctx);
    Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
    auto callee = module.lookupSymbol<func::FuncOp>(TIDE_RT_CPU_TEAM_SIZE);
    if (!callee) {
      builder.setInsertionPointToStart(module.getBody());
      callee =
          func::FuncOp::create(builder, module.getLoc(), TIDE_RT_CPU_TEAM_SIZE,
                               builder.getFunctionType({i64, i64, i32}, {i32}));
      callee.setPrivate();
    }

    for (omp::ParallelOp region : regions) {
      Location loc = region.getLoc();
      builder.setInsertionPoint(region);
      LoopWork counter(region, &builder);
      std::optional<OpFoldResult> work = counter.ofRoot();
      Value count = getValueOrCreateConstantIndexOp(builder, loc, *work);
      Value work64 = builder.createOrFold<arith::IndexCastOp>(loc, i64, count);
      Value grainValue = arith::ConstantIntOp::create(builder, loc, i64, grain);
      Value compiled = arith::ConstantIntOp::create(builder, loc, i32, threads);
      Value team =
          func::CallOp::create(builder, loc, callee,
                               ValueRange{work64, grainValue, compiled})
              .getResult(0);
      Value one = arith::ConstantIntOp::create(builder, loc, i32, 1);
      Value many = arith::CmpIOp::create(builder, loc,
                                         arith::CmpIPredicate::sgt, team, one);
      region.getNumThreadsMutable().assign(team);
      region.getIfExprMutable().assign(many);
    }
  }
};

} // namespace
