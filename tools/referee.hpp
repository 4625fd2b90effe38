// The referee: an independent, brute-force validity decider for small .uir
// programs, used to check the oracle (tests/unit/referee_prop_test.cpp and
// `cairn fuzz`).
//
// It shares nothing with the oracle's ordering or bounds layers. It relies
// on the oracle's *structure* layer only as a precondition and for the
// dtype of each scalar: a program that layer rejects is not judged
// (`Status::Unstructured`). Each remaining rule is decided from its
// definition in docs/uir.md:
//   - one-store-per-version, store-sequenced, after-version, `loop` (a store
//     in a serial body writing an outer version): by counting writers and
//     `after`s per (event, version), computed afresh from the graph;
//   - old-version-order: by searching every order of the loads and events
//     of each region (a loop is one node of the region around it, as the
//     docs define) for one that respects all data dependences and runs each
//     load of a version before every event that overwrites it. The search is
//     exact (memoised over the sets of already-placed members, so it visits
//     each downward-closed set once); past `maxOrderMembers` constrained
//     members in one region it gives up and says so (`undecided`);
//   - bounds (`shrink`) and lanes (parallel stores and the loads next to
//     them): by evaluating the offsets over every assignment of their
//     sources. A source is a loaded or reduced value (any value of its
//     dtype, as the docs define) or a loop index (0 <= i < its bound).
//     Sources of 16 bits or less and index ranges up to `maxIndexRange`
//     (131072: past 2^16, so lanes that meet through a cast to u16 are
//     seen) are enumerated completely, so a "no violation" is a proof;
//     wider sources are sampled (edge values, the points where casts wrap,
//     random ones), so a violation found is always real but its absence is
//     only `undecided`. Values are computed as docs/uir.md defines them
//     (integer ops and casts wrap modulo 2^width; unsigned `0 - 1` is the
//     dtype's maximum), with the interpreter's scalar code (exec/alu.hpp);
//   - lanes: for each parallel loop and each assignment of the values from
//     outside it, every iteration's stores and loads of the buffers it
//     stores into are evaluated (over every value inside the iteration);
//     broken when two iterations store into one element, or one loads an
//     element another stores into (tools/referee_lanes.cpp).
// The oracle's bounds and lane analyses are conservative by design
// (interval analysis; the `c*i + r` form), so the referee may prove a view
// in bounds that the oracle rejects; callers treat that one direction as
// allowed and count it. Anything else that differs is a bug in one of them.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.hpp"

namespace cairn {

struct RefereeOptions {
  uint32_t maxOrderMembers = 20;     // constrained members per region in the order search
  uint64_t maxExhaustive = 1u << 18; // assignments enumerated per obligation before sampling
  uint64_t maxIndexRange = 1u << 17; // loops of at most this many iterations are enumerated completely
  uint64_t maxLaneWork = 1u << 20;   // accesses one parallel loop's lane check records before sampling
  uint32_t samples = 512;            // random assignments per obligation when sampling
  uint32_t maxCone = 512;            // nodes an offset may depend on before giving up
  uint64_t seed = 0x5eed;            // for the sampled assignments (results are reproducible)
  bool lanes = true;                 // decide the lane rule of parallel loops too
};

struct RefereeFinding {
  std::string rule;  // as the oracle names it: "old-version-order", "bounds", ...
  NodeId node;       // where: the store, after, load or shrink concerned
  std::string message;
  std::vector<NodeId> related;  // the other nodes involved (afters, the other writer, ...)
};

struct RefereeVerdict {
  enum class Status { Judged, Unstructured } status = Status::Judged;
  std::vector<RefereeFinding> findings;   // rules certainly broken (with a witness)
  std::vector<RefereeFinding> undecided;  // obligations neither proven nor broken
  uint64_t proven = 0;                    // bounds/lane obligations proven exhaustively

  bool judged() const { return status == Status::Judged; }
  bool valid() const { return judged() && findings.empty() && undecided.empty(); }
  bool violates(std::string_view rule) const;
  bool undecidedOn(std::string_view rule) const;
  std::set<std::string> rules() const;  // of the findings
};

// Judges a parsed graph. Never throws on any input; a graph the oracle's
// structure layer rejects is returned as Unstructured with no findings.
RefereeVerdict referee(const Graph &g, const RefereeOptions &opts = {});

// Parses .uir text and judges it (a parse error: Unstructured).
RefereeVerdict refereeText(std::string_view text, const RefereeOptions &opts = {});

// One line per finding / undecided obligation, for failure messages.
std::string verdictText(const Graph &g, const RefereeVerdict &v);

// The oracle and the referee on one program. They agree when the oracle
// names every rule the referee finds broken, and every rule the oracle
// names is one the referee finds broken -- except `bounds` and `lane`,
// which the oracle may report where the referee found no violation: its
// analyses are conservative by design (Conservative). Any other difference
// is a Disagreement, and `detail` says what each said.
// Disagreements go both ways: `unsound` marks the worse one, an oracle that
// accepts a program the referee finds broken (a witness: a real violation);
// `missed` lists the rules the referee finds broken and the oracle does not
// report (there). For Conservative, `refused` lists each rule (bounds, lane)
// the oracle reports and the referee finds unbroken, with where the program
// stands for the referee: proven valid (every obligation enumerated
// completely, nothing broken), undecided (nothing broken, some obligation
// only sampled), or broken otherwise (by rules the oracle reports too).
struct Agreement {
  enum class Kind { Skipped, Agree, Conservative, Disagree } kind = Kind::Skipped;
  bool oracleValid = false;
  bool unsound = false;             // Disagree: the oracle accepts, the referee finds a violation
  std::vector<std::string> missed;  // Disagree: rules broken that the oracle does not report
  enum class Standing { Proven, Undecided, Broken };
  struct Refusal {
    std::string rule;
    Standing program = Standing::Proven;
  };
  std::vector<Refusal> refused;  // Conservative
  std::string detail;
};
Agreement compareWithOracle(std::string_view text, const RefereeOptions &opts = {});

}  // namespace cairn
