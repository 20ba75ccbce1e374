// The main every example shares: it runs the example's Example() and, when that fails, prints
// why and exits 1. An example's own file holds what a product would write.
#include <iostream>

#include "absl/status/status.h"

absl::Status Example();

int main() {
  if (absl::Status status = Example(); !status.ok()) {
    std::cerr << status << "\n";
    return 1;
  }
  return 0;
}
