// tools/agentrt/suggest.h
//
// "Did you mean ...?" for a mistyped command: the known command names nearest by edit distance
// to what was typed, or none when nothing is near enough to be a slip of the keyboard rather
// than a different word. A wrong suggestion costs more than none, so "near enough" is strict.
//
// Pure functions of their arguments. They are defined here, inline, so that tests/tools can
// check them without linking the CLI, whose sources build only into the agentrt executable.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentrt::cli {

// EditDistance is the optimal string alignment distance between `a` and `b`: the fewest
// single-byte insertions, deletions, substitutions and swaps of two adjacent bytes that turn
// `a` into `b`, no byte edited twice. A swap counts once because "verfiy" is one slip, not two.
inline std::size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the table: row i-2 is needed for a swap.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

namespace suggest_internal {

inline std::string AsciiLower(std::string_view word) {
  std::string lower(word);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

// The most edits a word of this length may be from a name and still be taken for a slip: one
// in three bytes, at least one. ("verfy" is one from "verify"; "rn" is not taken for "runs".)
inline std::size_t MaxSlips(std::string_view typed) {
  return std::max<std::size_t>(1, typed.size() / 3);
}

// The distance from `typed` to `word`, or past `limit` when it exceeds `limit`; cheap for a
// long `typed`, since a length difference alone rules most pairs out.
inline std::size_t DistanceWithin(std::string_view typed, std::string_view word,
                                  std::size_t limit) {
  std::size_t gap =
      typed.size() > word.size() ? typed.size() - word.size() : word.size() - typed.size();
  return gap > limit ? limit + 1 : EditDistance(typed, word);
}

}  // namespace suggest_internal

// ClosestCommands returns the names among `names` (each one word, "verify", or two,
// "json canon") that `words` most likely meant. `words` is the command line after the program
// name, starting with the word that named no command. The first typed word is compared,
// ignoring ASCII case, with each name's first word and, for a two-word name, also with its
// second (so "dump" finds "cassette dump"); the names at the smallest distance within
// MaxSlips are kept. When several remain and a second word was typed, it picks among them by
// their second words if one is near it ("jsn hash" finds "json hash", "jsn" finds both json
// commands). Returns the names in the order of `names`; empty when none is near.
inline std::vector<std::string_view> ClosestCommands(std::span<const std::string_view> names,
                                                     std::span<const std::string> words) {
  using suggest_internal::AsciiLower;
  using suggest_internal::DistanceWithin;
  using suggest_internal::MaxSlips;
  if (words.empty()) return {};
  const std::string typed = AsciiLower(words[0]);
  const std::size_t limit = MaxSlips(typed);
  std::vector<std::string_view> closest;
  std::size_t best = limit + 1;
  for (std::string_view name : names) {
    std::size_t space = name.find(' ');
    std::size_t distance = DistanceWithin(typed, name.substr(0, space), limit);
    if (space != std::string_view::npos) {
      distance = std::min(distance, DistanceWithin(typed, name.substr(space + 1), limit));
    }
    if (distance > limit || distance > best) continue;
    if (distance < best) closest.clear();
    best = distance;
    closest.push_back(name);
  }
  if (closest.size() < 2 || words.size() < 2) return closest;

  const std::string second = AsciiLower(words[1]);
  const std::size_t second_limit = MaxSlips(second);
  std::vector<std::string_view> narrowed;
  std::size_t second_best = second_limit + 1;
  for (std::string_view name : closest) {
    std::size_t space = name.find(' ');
    if (space == std::string_view::npos) continue;
    std::size_t distance = DistanceWithin(second, name.substr(space + 1), second_limit);
    if (distance > second_limit || distance > second_best) continue;
    if (distance < second_best) narrowed.clear();
    second_best = distance;
    narrowed.push_back(name);
  }
  return narrowed.empty() ? closest : narrowed;
}

}  // namespace agentrt::cli
