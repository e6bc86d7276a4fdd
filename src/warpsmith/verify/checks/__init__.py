"""Whether the candidate computed the right thing: the reference and the inputs of each call,
the comparison, the streamed checked calls, the memory plan and memcheck, how its process
ended, what the CPU cannot judge, which GPU kernels ran. Of verify/ it imports the doors,
isolation/ and static/; inputs.py, which the candidate's process loads too, none of them."""
