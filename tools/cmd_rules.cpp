// `cairn rules [CODE] [--json]`: the CAIRN front end's diagnostic codes, from
// the one table in lower/check/rules.hpp.
//
//   cairn rules               every code and its title, one per line
//   cairn rules E-MOVED       that code's card: rule, why, fix, two programs
//   cairn rules --json        [{"code", "title", "enforced"}, ...]
//   cairn rules E-MOVED --json  {"code", "title", "rule", "why", "fix",
//                                "refused", "accepted", "enforced"}
// An unknown code exits 2 and names the nearest codes. Letters may be in any
// case, and `moved` finds E-MOVED only as a suggestion (exact codes only).
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "lower/check/rules.hpp"
#include "tools/commands.hpp"

namespace cairn {

namespace {

nlohmann::json cardJson(const rules::Rule &r) {
  return {{"code", r.code},         {"title", r.title},       {"rule", r.rule},
          {"why", r.why},           {"fix", r.fix},           {"refused", r.refused},
          {"accepted", r.accepted}, {"enforced", r.enforced}};
}

// Indents every line of a program by four spaces (a Markdown code block).
std::string indented(std::string_view text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out + '\n';
}

void printCard(const rules::Rule &r) {
  std::cout << r.code << ": " << r.title << "\n\n";
  if (!r.enforced) std::cout << "(cairn does not refuse this yet; the rule is the language's.)\n\n";
  std::cout << "Rule: " << r.rule << "\n\nWhy: " << r.why << "\n\nFix: " << r.fix << "\n\n";
  if (r.refused.empty())
    std::cout << "Refused: no program; this code reports a bug in cairn.\n\n";
  else
    std::cout << "Refused:\n\n" << indented(r.refused) << '\n';
  std::cout << "Accepted:\n\n" << indented(r.accepted);
}

}  // namespace

CLI::App *addRulesCommand(CLI::App &app, RulesArgs &a) {
  auto *c = app.add_subcommand("rules", "List the CAIRN diagnostic codes, or print one code's card.");
  c->add_option("CODE", a.code, "a code such as E-MOVED: print its card (the rule, why, how to fix it, examples)");
  c->add_flag("--json", a.json,
              "print [{\"code\", \"title\", \"enforced\"}] or, with CODE, {\"code\", \"title\", \"rule\", \"why\", "
              "\"fix\", \"refused\", \"accepted\", \"enforced\"} on stdout");
  c->footer(
      "Without CODE: one line per code, `E-CODE  title`. A card marks a rule cairn does not refuse yet.\n"
      "Exit status: 0 success; 2 an unknown code (the nearest codes are named on stderr).");
  return c;
}

int rulesCommand(const RulesArgs &a) {
  if (a.code.empty()) {
    if (a.json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto &r : rules::all())
        list.push_back({{"code", r.code}, {"title", r.title}, {"enforced", r.enforced}});
      std::cout << list.dump(2) << '\n';
      return 0;
    }
    size_t width = 0;
    for (const auto &r : rules::all()) width = std::max(width, r.code.size());
    for (const auto &r : rules::all())
      std::cout << r.code << std::string(width + 2 - r.code.size(), ' ') << r.title << '\n';
    return 0;
  }
  const rules::Rule *r = rules::find(a.code);
  if (!r) {
    std::string near;
    for (std::string_view c : rules::nearest(a.code)) near += (near.empty() ? "" : ", ") + std::string(c);
    std::cerr << "cairn: error: unknown diagnostic code " << a.code << " (nearest: " << near
              << "; `cairn rules` lists them all)\n";
    return 2;
  }
  if (a.json)
    std::cout << cardJson(*r).dump(2) << '\n';
  else
    printCard(*r);
  return 0;
}

}  // namespace cairn
