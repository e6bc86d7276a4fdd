"""warpsmith as the reward of RL trainers, in each trainer's own terms (docs/rl.md):

    warpsmith.rl.trl       reward_function / async_reward_function for TRL's GRPOTrainer
    warpsmith.rl.verl      compute_score / compute_score_async (custom_reward_function)
    warpsmith.rl.openrlhf  reward_func for --remote_rm_url FILE.py; the service answers
                           --remote_rm_url URL/v1/openrlhf
    warpsmith.rl.skyrl     WarpsmithEnv, a multi-turn skyrl-gym environment
    warpsmith.rl.scoring   LocalScorer (verify in process), ServiceScorer (the reward service)

Importing any of them loads neither torch nor the verifier: that happens on the first score
made in process.
"""
