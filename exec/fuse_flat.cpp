// Superinstructions for flat graphs (Compiler::fuseFlat): after runFlat
// (compile.cpp) has laid out the bytecode, straight runs of instructions
// that often follow each other -- two loads, a load and an op, an op and
// its store, a store and its loop's end, two index ops, ... -- get one
// opcode of CAIRN_EXEC_FLATFUSE (exec/program.hpp), put on the run's first
// instruction; a mod or idiv by a small constant gets one that multiplies
// by its reciprocal instead of dividing.
//
// The run's instructions stay where they are: the fused handler
// (interp.cpp) reads their operands from them, does their work in their
// order and jumps past them. So every instruction index, node, step weight
// and trap place is unchanged, and so are the results, traps, step counts
// and step-limit places. A run contains no jump target after its first
// instruction and a kLoopEnd only as its last, so control enters and
// leaves it as it did. Program::plainOp keeps the original opcodes: a
// traced run uses them (unfuse), so --trace sees every instruction.
#include <cstring>
#include <iterator>
#include <vector>

#include "exec/compiler.hpp"

namespace cairn::exec {
namespace {

enum class Form : uint8_t {
  LL, LS, SE, LA, AS, LLA, LLAS, AE, ASE, LLASE, LSE, AddA, SubA, MulA, MaxA, MinA, ModC, IdivC, MC,
  LLAD, LLASD, LLASED, ASD, ASED, LASE, LASED, SSE  // SSE last (kForms)
};
enum class FOp : uint8_t { Nop, Add, Sub, Mul, Max, Min };

struct Desc {
  Form form;
  FOp op;
  DType t;
};
constexpr Desc kDescs[] = {
#define CAIRN_E(F, O, T) {Form::F, FOp::O, DType::T},
    CAIRN_EXEC_FLATFUSE(CAIRN_E)
#undef CAIRN_E
};
constexpr uint32_t kFirst = kFLL_Nop_Bool;
static_assert(kFirst + std::size(kDescs) == kNumOpcodes, "CAIRN_EXEC_FLATFUSE ends the opcode enum");

constexpr size_t kForms = static_cast<size_t>(Form::SSE) + 1, kFOps = static_cast<size_t>(FOp::Min) + 1;
constexpr size_t kDTs = static_cast<size_t>(kNumDTypes);
static_assert(kNumOpcodes <= 65536, "Ins::op is 16 bits");
constexpr size_t key(Form f, FOp o, DType t) {
  return (static_cast<size_t>(f) * kFOps + static_cast<size_t>(o)) * kDTs + static_cast<size_t>(t);
}

// The opcode of (form, op, t); 0: there is none. A table, so that fusing
// stays linear in the program's size.
uint32_t fusedOpc(Form f, FOp o, DType t) {
  static const std::vector<uint16_t> table = [] {
    std::vector<uint16_t> v(kForms * kFOps * kDTs, 0);
    for (size_t i = 0; i < std::size(kDescs); ++i)
      v[key(kDescs[i].form, kDescs[i].op, kDescs[i].t)] = static_cast<uint16_t>(kFirst + i);
    return v;
  }();
  if (static_cast<size_t>(t) >= kDTs) return 0;
  return table[key(f, o, t)];
}

constexpr uint32_t kNumAlu = 20;  // ops in CAIRN_EXEC_ALU
static_assert(aluOpc(kNumAlu - 1, DType::F64) + 1 == kCast_Bool_Bool, "CAIRN_EXEC_ALU has 20 ops");

// An instruction as a letter of the forms: L load, S store, A an ALU op of
// CAIRN_FF_OPS, E kLoopEnd; 0 anything else.
struct Cls {
  char kind = 0;
  FOp op = FOp::Nop;
  DType t = DType::None;
};

FOp fop(int aluIdx) {
  if (aluIdx == aluIndex(Op::Add)) return FOp::Add;
  if (aluIdx == aluIndex(Op::Sub)) return FOp::Sub;
  if (aluIdx == aluIndex(Op::Mul)) return FOp::Mul;
  if (aluIdx == aluIndex(Op::Max)) return FOp::Max;
  if (aluIdx == aluIndex(Op::Min)) return FOp::Min;
  return FOp::Nop;
}

Cls classify(uint32_t op) {
  if (op >= kLoad_Bool && op < kLoad_Bool + kNumDTypes) return {'L', FOp::Nop, static_cast<DType>(op - kLoad_Bool)};
  if (op >= kStore_Bool && op < kStore_Bool + kNumDTypes) return {'S', FOp::Nop, static_cast<DType>(op - kStore_Bool)};
  if (op == kLoopEnd) return {'E', FOp::Nop, DType::None};
  if (op >= kAdd_Bool && op < kAdd_Bool + kNumAlu * kNumDTypes) {
    FOp o = fop(static_cast<int>((op - kAdd_Bool) / kNumDTypes));
    if (o != FOp::Nop) return {'A', o, static_cast<DType>((op - kAdd_Bool) % kNumDTypes)};
  }
  return {};
}

// The index-arithmetic forms, by their first op.
Form firstOpForm(FOp o) {
  switch (o) {
    case FOp::Add: return Form::AddA;
    case FOp::Sub: return Form::SubA;
    case FOp::Mul: return Form::MulA;
    case FOp::Max: return Form::MaxA;
    default: return Form::MinA;
  }
}

bool isLoopControl(uint32_t op) { return op == kLoopBeginS || op == kLoopBeginU || op == kLoopEnd; }

}  // namespace

void Compiler::fuseFlat() {
  std::vector<Ins> &code = p_.code;
  const size_t n = code.size();
  // Where control may arrive other than from the instruction before: loop
  // bodies, the instructions after loops, and (to be safe) loop exits.
  std::vector<uint8_t> target(n + 1, 0);
  for (size_t k = 0; k < n; ++k)
    if (isLoopControl(code[k].op)) {
      target[k + 1] = 1;
      if (code[k].b <= n) target[code[k].b] = 1;
    }
  p_.plainOp.resize(n);
  for (size_t k = 0; k < n; ++k) p_.plainOp[k] = code[k].op;
  bool any = false;
  for (size_t k = 0; k < n;) {
    uint32_t len = fuseAt(k, target);
    any = any || code[k].op != p_.plainOp[k];
    k += len;
  }
  if (!any) p_.plainOp.clear();
}

// Fuses the run at k when one form fits; returns its length (1: none, or
// a single instruction rewritten).
uint32_t Compiler::fuseAt(size_t k, const std::vector<uint8_t> &target) {
  const std::vector<Ins> &code = p_.code;
  Cls c[5];
  char kinds[6] = {0, 0, 0, 0, 0, 0};
  size_t m = 0;
  while (m < 5 && k + m < code.size() && (m == 0 || !target[k + m])) {
    c[m] = classify(code[k + m].op);
    if (!c[m].kind) break;
    kinds[m] = c[m].kind;
    ++m;
  }
  struct Try {
    const char *pat;
    Form form, direct;  // direct: the form when values flow as in a D form
  };
  // Longest first: each dispatch saved is most of the cost of an element.
  static constexpr Try kTries[] = {
      {"LLASE", Form::LLASE, Form::LLASED}, {"LLAS", Form::LLAS, Form::LLASD}, {"LLA", Form::LLA, Form::LLAD},
      {"LASE", Form::LASE, Form::LASED},    {"ASE", Form::ASE, Form::ASED},    {"LSE", Form::LSE, Form::LSE},
      {"SSE", Form::SSE, Form::SSE},        {"LL", Form::LL, Form::LL},
      {"LS", Form::LS, Form::LS},           {"SE", Form::SE, Form::SE},        {"LA", Form::LA, Form::LA},
      {"AS", Form::AS, Form::ASD},          {"AE", Form::AE, Form::AE}};
  for (const Try &tr : kTries) {
    const size_t len = std::strlen(tr.pat);
    if (len > m || std::strncmp(kinds, tr.pat, len) != 0) continue;
    DType t = DType::None;
    FOp op = FOp::Nop;
    bool same = true;
    for (size_t j = 0; j < len; ++j) {
      if (c[j].kind == 'E') continue;
      if (t == DType::None) t = c[j].t;
      same = same && c[j].t == t;
      if (c[j].kind == 'A') op = c[j].op;
    }
    if (!same) continue;
    if (uint32_t opc = fusedOpc(flowsDirectly(k, tr.pat) ? tr.direct : tr.form, op, t)) {
      p_.code[k].op = static_cast<uint16_t>(opc);
      return static_cast<uint32_t>(len);
    }
  }
  if (m >= 2 && c[0].kind == 'A' && c[1].kind == 'A' && c[0].t == DType::I64 && c[1].t == DType::I64) {
    if (uint32_t opc = fusedOpc(firstOpForm(c[0].op), c[1].op, DType::I64)) {
      p_.code[k].op = static_cast<uint16_t>(opc);
      return 2;
    }
  }
  if (!divByConst(k)) return 1;
  // An index mod a constant, converted: MC.
  if (k + 1 < code.size() && !target[k + 1] && p_.plainOp[k] == aluOpc(aluIndex(Op::Mod), DType::I64) &&
      code[k + 1].a == code[k].d) {
    const uint32_t next = code[k + 1].op;
    if (next >= castOpc(DType::I64, DType::Bool) && next <= castOpc(DType::I64, DType::F64))
      if (uint32_t opc = fusedOpc(Form::MC, FOp::Nop, static_cast<DType>(next - castOpc(DType::I64, DType::Bool)))) {
        p_.code[k].op = static_cast<uint16_t>(opc);
        return 2;
      }
  }
  return 1;
}

// Whether the run at k of pattern `pat` (LLA.., AS.., LASE) passes its
// values as the D forms take them: the op's operands a and b are the two
// loads' results (LASE: its b is the load's), the store's value is the
// op's result.
bool Compiler::flowsDirectly(size_t k, const char *pat) const {
  const std::vector<Ins> &code = p_.code;
  if (std::strcmp(pat, "LASE") == 0) return code[k + 1].b == code[k].d && code[k + 2].c == code[k + 1].d;
  size_t a = std::strncmp(pat, "LLA", 3) == 0 ? 2 : std::strncmp(pat, "AS", 2) == 0 ? 0 : SIZE_MAX;
  if (a == SIZE_MAX) return false;
  if (a == 2 && (code[k].d == code[k + 1].d || code[k + 2].a != code[k].d || code[k + 2].b != code[k + 1].d))
    return false;
  return pat[a + 1] != 'S' || code[k + a + 1].c == code[k + a].d;
}

// mod/idiv of i32 i64 u32 u64 by a constant d in [2, 2^32): for dividends
// in [0, 2^32) the handler computes the result from M = 2^64 / d rounded up
// (Lemire, Kaser, Kurz: "Faster remainder by direct computation", exact for
// 32-bit operands), kept in a constant register in c.
bool Compiler::divByConst(size_t k) {
  Ins &ins = p_.code[k];
  if (ins.op < kAdd_Bool || ins.op >= kAdd_Bool + kNumAlu * kNumDTypes) return false;
  const int idx = static_cast<int>((ins.op - kAdd_Bool) / kNumDTypes);
  const DType t = static_cast<DType>((ins.op - kAdd_Bool) % kNumDTypes);
  const bool mod = idx == aluIndex(Op::Mod);
  if (!mod && idx != aluIndex(Op::Idiv)) return false;
  if (!isConst(ins.b)) return false;
  const Bits d = constVal(ins.b);  // normal form: a negative divisor is huge
  if (d < 2 || d > 0xffffffffu) return false;
  const uint32_t opc = fusedOpc(mod ? Form::ModC : Form::IdivC, FOp::Nop, t);
  if (!opc) return false;
  ins.c = constReg(UINT64_MAX / d + 1);  // registers grow, the code does not: ins stays valid
  ins.op = static_cast<uint16_t>(opc);
  return true;
}

void unfuse(Program &p) {
  for (size_t k = 0; k < p.plainOp.size() && k < p.code.size(); ++k) p.code[k].op = p.plainOp[k];
  p.plainOp.clear();
}

}  // namespace cairn::exec
