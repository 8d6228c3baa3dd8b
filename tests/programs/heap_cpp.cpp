// C++ allocations through operator new and new[], leaked from known
// callers: 10 Node objects made and 9 deleted in make_nodes (1 leaked,
// sizeof(Node) bytes), one int[100] array in make_array (400 bytes).
#include <cstdio>

struct Node {
  long values[4];
};

static Node *volatile kept_node;
static int *volatile kept_array;

__attribute__((noinline)) static void make_nodes(int n)
{
  for (int i = 0; i < n; i++) {
    Node *p = new Node();
    p->values[0] = i;
    if (i == n - 1)
      kept_node = p;
    else
      delete p;
  }
}

__attribute__((noinline)) static void make_array()
{
  kept_array = new int[100];
  kept_array[0] = 1;
}

int main()
{
  make_nodes(10);
  make_array();
  std::printf("cpp_truth: make_nodes 10 1 %zu make_array 1 1 %zu\n", sizeof(Node), 100 * sizeof(int));
  return 0;
}
