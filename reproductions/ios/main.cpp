// repro_ios: placeholder until the paper's issue lands; lists nothing runnable.
#include "common/cli/cli.h"

int main(int argc, char** argv) {
  const dgs::PaperInfo paper{"ios", "ios", ""};
  return dgs::run_cli(argc, argv, paper, {});
}
